// Imported by name: in the module graph deno compile sees, so not a declared module.
export const notDeclared = true;
