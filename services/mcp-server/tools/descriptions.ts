/** Tool descriptions shown to agents in tools/list. @module */

export const SEARCH_DESCRIPTION =
  "Find capabilities by keywords. Returns up to a bounded number of {name, signature, summary} " +
  "results, best first (an exact dotted name ranks first). Then call describe_api with an exact " +
  "returned name before using it in execute. Empty results mean no match: try other words.";

export const DESCRIBE_DESCRIPTION =
  "Describe one capability by its exact dotted name (as returned by search_api): signature, " +
  "summary, description, and the input and output fields with their types. Input fields are " +
  "keyword arguments; `T | None` inputs are optional. Output `name?: T` fields may be absent.";

export const EXECUTE_DESCRIPTION = [
  "Run a Starlark program that defines `def main():` with zero arguments and returns the final",
  "value; the result is {result: <value returned by main>}. Call capabilities only inside main,",
  'by dotted name with keyword arguments only, e.g. `records.lookup(key="a")`, using names',
  "confirmed with search_api and describe_api. Dialect: no import, load, while, f-strings,",
  "filter, map or set (use comprehensions); no recursion; print output is discarded; json and",
  "math are predeclared. Each call gets fresh state and budgets (steps, time, capability calls,",
  "value depth and size). On `invalid capability arguments` compare the call with the signature;",
  "on `capability failed` the program stopped, submit a new one; on `resource limit exceeded`",
  "reduce the work or data.",
].join(" ");
