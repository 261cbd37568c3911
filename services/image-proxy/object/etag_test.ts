import assert from "node:assert/strict";
import { parseEntityTag, parseEntityTagList, strongMatch, weakMatch } from "./etag.ts";

const strong = (opaque: string) => ({ weak: false, opaque });
const weak = (opaque: string) => ({ weak: true, opaque });

Deno.test("parseEntityTag() reads one strong or weak tag", () => {
  assert.deepEqual(parseEntityTag('"abc"'), strong('"abc"'));
  assert.deepEqual(parseEntityTag('W/"abc"'), weak('"abc"'));
  assert.deepEqual(parseEntityTag('""'), strong('""'));
  for (const bad of ["abc", '"abc', 'w/"abc"', '"a"b', '"a" ', '"a"b"', '"a\u0000"', '"a b"']) {
    assert.equal(parseEntityTag(bad), null, JSON.stringify(bad));
  }
});

Deno.test("parseEntityTagList() reads lists, * and rejects malformed values", async (t) => {
  await t.step("lists", () => {
    assert.deepEqual(parseEntityTagList('"a"'), [strong('"a"')]);
    assert.deepEqual(parseEntityTagList('"a", W/"b"'), [strong('"a"'), weak('"b"')]);
    assert.deepEqual(parseEntityTagList('"a",W/"b" ,  "c"'), [
      strong('"a"'),
      weak('"b"'),
      strong('"c"'),
    ]);
    assert.deepEqual(parseEntityTagList(' , "a" ,, "b" , '), [strong('"a"'), strong('"b"')]);
    assert.deepEqual(parseEntityTagList('"a,b"'), [strong('"a,b"')]);
  });
  await t.step("star", () => {
    assert.equal(parseEntityTagList("*"), "*");
    assert.equal(parseEntityTagList(" * "), "*");
  });
  await t.step("malformed", () => {
    for (
      const bad of [
        "",
        " ",
        ",",
        "a",
        '"a" "b"',
        '"a";"b"',
        '*, "a"',
        '"a", *',
        "**",
        '"a',
        'W/ "a"',
        '"a"x',
      ]
    ) {
      assert.equal(parseEntityTagList(bad), null, JSON.stringify(bad));
    }
  });
});

Deno.test("strongMatch() and weakMatch() follow RFC 9110's comparison table", () => {
  // RFC 9110 §8.8.3.2, the four example rows.
  assert.equal(strongMatch(weak('"1"'), 'W/"1"'), false);
  assert.equal(weakMatch(weak('"1"'), 'W/"1"'), true);
  assert.equal(strongMatch(weak('"1"'), 'W/"2"'), false);
  assert.equal(weakMatch(weak('"1"'), 'W/"2"'), false);
  assert.equal(strongMatch(weak('"1"'), '"1"'), false);
  assert.equal(weakMatch(weak('"1"'), '"1"'), true);
  assert.equal(strongMatch(strong('"1"'), '"1"'), true);
  assert.equal(weakMatch(strong('"1"'), '"1"'), true);
  assert.equal(strongMatch(strong('"1"'), "unquoted"), false);
});
