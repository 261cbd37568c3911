class S3Bucket {
  constructor(name, creationDate) {
    this.name = name
    this.creationDate = creationDate
  }
}
module.exports = S3Bucket
