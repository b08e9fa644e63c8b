// Query parameters decoded as kube-apiserver decodes them: rows from
// k8s.io/apimachinery pkg/runtime/conversion.go (Convert_Slice_string_To_bool/int64),
// pkg/apis/meta/internalversion/scheme/register_test.go TestListOptions, Go's strconv.ParseInt
// and time.ParseDuration, and k8s.io/apiserver pkg/endpoints/filters/request_deadline.go parseTimeout.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../../src/sandbox/server/errors';
import { parseGoDuration } from '../../../../src/lib/go-duration';
import { listQuery, parseQueryBool, parseQueryInt64, QueryParams } from '../../../../src/sandbox/server/query-params';

const q = (s: string) => new QueryParams(new URLSearchParams(s));

describe('Convert_Slice_string_To_bool (apimachinery pkg/runtime/conversion.go)', () => {
  const rows: Array<[string, string[], boolean | undefined]> = [
    ['absent', [], undefined],
    ['"0" is false', ['0'], false],
    ['"false" is false', ['false'], false],
    ['"False" (Python client) is false', ['False'], false],
    ['"FALSE" is false', ['FALSE'], false],
    ['"true" is true', ['true'], true],
    ['"True" (Python client) is true', ['True'], true],
    ['"1" is true', ['1'], true],
    ['the empty string is true', [''], true],
    ['"no" is true (any other value)', ['no'], true],
    ['only the first value counts', ['false', 'true'], false],
  ];
  for (const [name, values, want] of rows) {
    it(`row ${name}`, () => assert.equal(parseQueryBool(values), want));
  }
  it('TestListOptions row watch=1 decodes as a watch (pkg/apis/meta/internalversion/scheme/register_test.go)', () => {
    assert.equal(listQuery(q('watch=1')).watch, true);
  });
});

describe('Convert_Slice_string_To_int64 = strconv.ParseInt(s, 10, 64) (apimachinery pkg/runtime/conversion.go string_to_int64)', () => {
  const ok: Array<[string, number]> = [['500', 500], ['+7', 7], ['-3', -3], ['0', 0], ['0010', 10], ['9223372036854775807', 9223372036854775807]];
  for (const [s, want] of ok) it(`row "${s}" parses to ${want}`, () => assert.equal(parseQueryInt64([s]), want));
  const bad: Array<[string, string]> = [
    ['abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    [' 5', 'strconv.ParseInt: parsing " 5": invalid syntax'],
    ['1_000', 'strconv.ParseInt: parsing "1_000": invalid syntax'],
    ['0x10', 'strconv.ParseInt: parsing "0x10": invalid syntax'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
  ];
  for (const [s, msg] of bad) {
    it(`row "${s}" is a 400 with Go's error text`, () => {
      assert.throws(() => parseQueryInt64([s]), (e: unknown) => e instanceof ApiError && e.code === 400 && e.reason === 'BadRequest' && e.message === msg);
    });
  }
  it('a bad limit fails the whole ListOptions decode (zz_generated.conversion.go autoConvert_url_Values_To_v1_ListOptions)', () => {
    assert.throws(() => listQuery(q('watch=true&limit=ten')), /parsing "ten": invalid syntax/);
    assert.deepEqual(listQuery(q('watch=True&allowWatchBookmarks=True&timeoutSeconds=30&limit=5&sendInitialEvents=False')), {
      watch: true,
      allowWatchBookmarks: true,
      timeoutSeconds: 30,
      limit: 5,
      sendInitialEvents: false,
    });
  });
});

describe("Go's time.ParseDuration, as the request deadline filter uses it (apiserver pkg/endpoints/filters/request_deadline.go parseTimeout)", () => {
  const ok: Array<[string, number]> = [['0', 0], ['5s', 5000], ['1.5s', 1500], ['1h30m', 5_400_000], ['-2m', -120_000], ['+250ms', 250], ['100us', 0.1], ['.5s', 500]];
  for (const [s, ms] of ok) it(`row "${s}" is ${ms} ms`, () => assert.equal(parseGoDuration(s), ms));
  const bad: Array<[string, string]> = [
    ['', 'time: invalid duration ""'],
    ['abc', 'time: invalid duration "abc"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['.s', 'time: invalid duration ".s"'],
  ];
  for (const [s, msg] of bad) it(`row "${s}" fails with ${msg}`, () => assert.throws(() => parseGoDuration(s), { message: msg }));
  it('a bad timeout is a 400 "invalid timeout specified in the request URL - ..."; an empty one is ignored', () => {
    assert.throws(() => q('timeout=10x').timeoutMs(), (e: unknown) => e instanceof ApiError && e.code === 400 && e.message === 'invalid timeout specified in the request URL - time: unknown unit "x" in duration "10x"');
    assert.equal(q('timeout=').timeoutMs(), undefined);
    assert.equal(q('timeout=32s').timeoutMs(), 32_000);
  });
});
