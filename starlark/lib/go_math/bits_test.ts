import assert from "node:assert/strict";
import {
  float64Bits,
  float64FromBits,
  frexp,
  fromWords,
  highWord,
  ldexp,
  lowWord,
  modf,
  signbit,
} from "./bits.ts";

Deno.test("bit access reads and writes both words", () => {
  assert.equal(float64Bits(1).toString(16), "3ff0000000000000");
  assert.equal(float64Bits(-0).toString(16), "8000000000000000");
  assert.equal(float64FromBits(1n), 5e-324);
  assert.equal(highWord(Math.PI), 0x400921fb);
  assert.equal(lowWord(Math.PI), 0x54442d18);
  assert.equal(fromWords(0x400921fb, 0x54442d18), Math.PI);
  assert.ok(signbit(-0) && !signbit(0) && signbit(-1) && !signbit(NaN) && signbit(-Infinity));
  assert.ok(signbit(float64FromBits(0xfff8000000000000n)));
});

Deno.test("frexp normalizes subnormals and passes zeros, infinities and NaN through", () => {
  assert.deepEqual(frexp(8), [0.5, 4]);
  assert.deepEqual(frexp(-3), [-0.75, 2]);
  assert.deepEqual(frexp(5e-324), [0.5, -1073]);
  assert.deepEqual(frexp(Number.MAX_VALUE), [1 - 2 ** -53, 1024]);
  assert.ok(Object.is(frexp(-0)[0], -0));
  assert.deepEqual(frexp(Infinity), [Infinity, 0]);
  assert.ok(Number.isNaN(frexp(NaN)[0]));
});

Deno.test("ldexp rounds once into the subnormals and saturates at both ends", () => {
  assert.equal(ldexp(0.5, 4), 8);
  assert.equal(ldexp(0.75, -1073), 1e-323); // 1.5 * 2**-1074 ties to even: 2 * 2**-1074
  assert.equal(ldexp(0.5, -1074), 0); // 2**-1075 ties to even: 0
  assert.ok(Object.is(ldexp(-0.5, -1080), -0));
  assert.equal(ldexp(0.5, 1025), Infinity);
  assert.equal(ldexp(-0.5, 1025), -Infinity);
  assert.equal(ldexp(5e-324, 1074), 1);
  assert.equal(ldexp(1, -1022), 2.2250738585072014e-308);
});

Deno.test("modf splits with the sign of the argument", () => {
  assert.deepEqual(modf(3.25), [3, 0.25]);
  assert.deepEqual(modf(-3.25), [-3, -0.25]);
  assert.deepEqual(modf(0.5), [0, 0.5]);
  assert.ok(Object.is(modf(-0)[1], -0));
  const [i, f] = modf(Infinity);
  assert.ok(i === Infinity && Number.isNaN(f));
});
