/**
 * fast-check generators of Starlark programs for the property-based differential tests.
 * Every generator yields complete source text with a `main()` whose result both runners compare.
 */
export { floatLiteral, program, starlarkString } from "./literals.ts";
export {
  arithmeticProgram,
  floatFormatProgram,
  mathProgram,
  numberParseProgram,
} from "./numbers.ts";
export { formatProgram, literalProgram, stringProgram } from "./strings.ts";
export { collectionProgram, mutationProgram, valueOpsProgram } from "./collections.ts";
export { jsonDecodeFuzzProgram, jsonIndentFuzzProgram, jsonProgram } from "./json.ts";
export { layoutProgram, numberLiteralProgram, syntaxProgram } from "./syntax.ts";
export { builtinCallProgram, callBindingProgram, closureProgram } from "./calls.ts";
export { methodArgsProgram } from "./methods.ts";
