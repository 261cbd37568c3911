import assert from "node:assert/strict";
import { float64Bits } from "./bits.ts";
import { exp, log } from "./exp_log.ts";
import { hypot } from "./hypot.ts";
import { acos, asin, atan, atan2 } from "./inverse_trig.ts";
import { acosh, asinh, atanh, cosh, sinh, tanh } from "./hyperbolic.ts";
import { mod, remainder } from "./mod.ts";
import { pow } from "./pow.ts";
import { round } from "./round.ts";
import { cos, sin, tan } from "./trig.ts";
import { gamma } from "../math_gamma.ts";

const FNS: Record<string, (x: number, y: number) => number> = {
  acos,
  acosh,
  asin,
  asinh,
  atan,
  atanh,
  cos,
  cosh,
  exp,
  gamma,
  log,
  round,
  sin,
  sinh,
  tan,
  tanh,
  degrees: (x) => (360 * x) / (2 * Math.PI),
  radians: (x) => (2 * Math.PI * x) / 360,
  atan2,
  hypot,
  mod,
  pow,
  remainder,
  logb: (x, y) => log(x) / log(y),
};

// Go 1.19's math package on amd64 with FMA, math.Float64bits of each result (logb is
// Log(x)/Log(y), as starlark's math.log(x, base)); the differential test checks many more
// arguments against starlark-go itself when Go is installed.
const GO_BITS: [string, number, number | undefined, bigint][] = [
  ["acos", 0.3, undefined, 0x3ff441f5ecbeef58n],
  ["acos", -0.99, undefined, 0x4008001be1bc011an],
  ["acos", 1, undefined, 0x0000000000000000n],
  ["acosh", 1.5, undefined, 0x3feecc2caec5160an],
  ["acosh", 3, undefined, 0x3ffc34366179d426n],
  ["acosh", 10000000000, undefined, 0x4037b810429a7c2an],
  ["asin", 0.3, undefined, 0x3fd380159e14f6ffn],
  ["asin", 0.8, undefined, 0x3fedac670561bb50n],
  ["asin", -0.00001, undefined, 0xbee4f8b588e4e940n],
  ["asinh", 0.3, undefined, 0x3fd2ec4ea565fcc1n],
  ["asinh", 5, undefined, 0x40027fdfac4e4380n],
  ["asinh", -1e+30, undefined, 0xc051715325f7f438n],
  ["atan", 0.1, undefined, 0x3fb983e282e2cc4dn],
  ["atan", 1.7, undefined, 0x3ff0a00a3bce369fn],
  ["atan", -100, undefined, 0xbff8f905eb2def21n],
  ["atan", 3, undefined, 0x3ff3fc176b7a8560n],
  ["atanh", 0.3, undefined, 0x3fd3cf2b50617c96n],
  ["atanh", 0.7, undefined, 0x3febc0ed0947fbe8n],
  ["atanh", -0.99, undefined, 0xc0052c581997cd85n],
  ["cos", 1, undefined, 0x3fe14a280fb5068cn],
  ["cos", 3, undefined, 0xbfefae04be85e5d2n],
  ["cos", 10000000000000000, undefined, 0xbfe40991e398dbfbn],
  ["cos", 1e+300, undefined, 0xbfe2699022adc4c1n],
  ["cos", 1e+22, undefined, 0x3fe0be2cef01c8f3n],
  ["cosh", 0.1, undefined, 0x3ff0147f40224b38n],
  ["cosh", 5, undefined, 0x40528d6fcbeff3aan],
  ["cosh", 700, undefined, 0x7efd945df4f8ec8en],
  ["exp", 1, undefined, 0x4005bf0a8b145769n],
  ["exp", -1, undefined, 0x3fd78b56362cef38n],
  ["exp", 0.3, undefined, 0x3ff599058c8c1a96n],
  ["exp", 700, undefined, 0x7f0d945df4f8ec8en],
  ["exp", -740, undefined, 0x0000000000000055n],
  ["exp", 1e-10, undefined, 0x3ff000000006df38n],
  ["gamma", 4.5, undefined, 0x40274371e7866c66n],
  ["gamma", -3.3, undefined, 0x3fdc10ab408e231cn],
  ["gamma", 60.1, undefined, 0x509c294e01b04346n],
  ["log", 2, undefined, 0x3fe62e42fefa39efn],
  ["log", 0.7071067811865476, undefined, 0xbfd62e42fefa39een],
  ["log", 1e-310, undefined, 0xc08628ae3f3c2ff6n],
  ["log", 3.7e+200, undefined, 0x407cdd34a3b05fd7n],
  ["round", 2.5, undefined, 0x4008000000000000n],
  ["round", -0.49999999999999994, undefined, 0x8000000000000000n],
  ["sin", 1, undefined, 0x3feaed548f090ceen],
  ["sin", 3, undefined, 0x3fc210386db6d55bn],
  ["sin", 10000000000000000, undefined, 0x3fe8f334432ebba5n],
  ["sin", 1e+300, undefined, 0xbfea2c16b010e386n],
  ["sin", 5000000000, undefined, 0x3fd01eb16f3e6c9cn],
  ["sinh", 0.1, undefined, 0x3fb9a487337b59b4n],
  ["sinh", 0.7, undefined, 0x3fe8465153d5bdben],
  ["sinh", 30, undefined, 0x429370470aec28ecn],
  ["tan", 1, undefined, 0x3ff8eb245cbee3a5n],
  ["tan", 1.5707963267948966, undefined, 0x434d02967c31cdc0n],
  ["tan", 1e+22, undefined, 0xbffa0f79c1b6b259n],
  ["tan", 4000000000, undefined, 0xbff190d373e33222n],
  ["tanh", 0.2, undefined, 0x3fc9439830b3a590n],
  ["tanh", 0.9, undefined, 0x3fe6ebe982d6605dn],
  ["tanh", 40, undefined, 0x3ff0000000000000n],
  ["degrees", 1.1, undefined, 0x404f833ee9d4222cn],
  ["radians", 57.3, undefined, 0x3ff0004d3d545d90n],
  ["atan2", 1, -2, 0x40056c6e7397f5aen],
  ["atan2", -3, -0.5, 0xbffbc66e44cbc074n],
  ["hypot", 3e+200, 4e+200, 0x699a20df0dcd3af0n],
  ["hypot", 1, 1e-10, 0x3ff0000000000000n],
  ["mod", 7.5, -2, 0x3ff8000000000000n],
  ["mod", 1e+300, 3.1, 0x4005343acf44ca16n],
  ["pow", 1.0000001, 1000000000, 0x48f349445a543ab1n],
  ["pow", 2.5, -3.7, 0x3fa1410bb40d75d5n],
  ["pow", -2, 11, 0xc0a0000000000000n],
  ["pow", 10, 0.3, 0x3fffec982d5bb8b0n],
  ["remainder", 7.5, 2, 0xbfe0000000000000n],
  ["remainder", 1e+300, 3.1, 0xbfdcc48fec4015b8n],
  ["logb", 1.5, 3, 0x3fd79ed8cf959587n],
  ["logb", 100, 10, 0x4000000000000000n],
];

Deno.test("go_math gives Go's bits without Go installed", () => {
  for (const [fn, x, y, bits] of GO_BITS) {
    const got = FNS[fn](x, y ?? 0);
    assert.equal(
      float64Bits(got).toString(16),
      bits.toString(16),
      `${fn}(${x}${y === undefined ? "" : `, ${y}`}) = ${got}`,
    );
  }
});

Deno.test("go_math keeps Go's special cases", () => {
  assert.ok(Object.is(sin(-0), -0) && Object.is(tan(-0), -0) && Object.is(atan(-0), -0));
  assert.ok(Number.isNaN(sin(Infinity)) && Number.isNaN(cos(-Infinity)));
  assert.ok(Number.isNaN(tan(NaN)) && Number.isNaN(asin(1.0000000000000002)));
  assert.equal(exp(-Infinity), 0);
  assert.equal(exp(709.79), Infinity);
  assert.equal(exp(-746), 0);
  assert.equal(log(0), -Infinity);
  assert.ok(Number.isNaN(log(-1)));
  assert.equal(log(Infinity), Infinity);
  assert.equal(atan2(0, -0), Math.PI);
  assert.ok(Object.is(atan2(-0, 0), -0));
  assert.equal(atan2(Infinity, -Infinity), 3 * Math.PI / 4);
  assert.equal(hypot(Infinity, NaN), Infinity);
  assert.ok(Number.isNaN(hypot(1, NaN)));
  assert.equal(pow(-1, Infinity), 1);
  assert.equal(pow(-0, -3), -Infinity);
  assert.equal(pow(-0, -2), Infinity);
  assert.equal(pow(-8, 1 / 3), NaN);
  assert.equal(pow(2, 2 ** 64), Infinity);
  assert.equal(pow(0.5, 2 ** 64), 0);
  assert.equal(pow(-Infinity, 3), -Infinity);
  assert.ok(Object.is(round(-0.4), -0));
  assert.equal(round(0.49999999999999994), 0);
  assert.equal(round(-2.5), -3);
  assert.ok(Number.isNaN(mod(Infinity, 2)) && Number.isNaN(remainder(1, 0)));
  assert.ok(Object.is(remainder(-2, 2), -0));
  assert.equal(atanh(1), Infinity);
  assert.ok(Number.isNaN(acosh(0.5)));
  assert.equal(sinh(-Infinity), -Infinity);
  assert.equal(tanh(-Infinity), -1);
  assert.ok(Object.is(tanh(-0), -0));
});
