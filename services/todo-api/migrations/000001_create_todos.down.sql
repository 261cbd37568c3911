DROP TABLE todos;
