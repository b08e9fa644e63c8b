// The robfig/cron v3.0.1 port (src/kruise/rules/cron.ts): rows of robfig's own tables (spec_test.go
// TestActivation, TestNext incl. the DST rows, TestErrors; parser_test.go TestRange, TestParseScheduleErrors),
// Go's time.ParseDuration messages for `@every`, and Kruise's TestScheduleWithTimeZone
// (pkg/controller/advancedcronjob/advancedcronjob_controller_test.go) through formatSchedule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoDuration as goParseDuration } from '../../../../src/lib/go-duration';
import { CronField, CronParseError, parseCron, parseStandard, timeZoneProblem } from '../../../../src/kruise/rules/cron';
import { formatSchedule } from '../../../../src/kruise/rules/advancedcronjob';

/** robfig's secondParser (parser_test.go). */
const SECOND_PARSER = CronField.Second | CronField.Minute | CronField.Hour | CronField.Dom | CronField.Month | CronField.DowOptional | CronField.Descriptor;
const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };

/** spec_test.go getTime: "Mon Jul 9 15:00 2012" in time.Local (UTC here, as kruise-manager's clock), or "2012-03-11T00:00:00-0500". */
function getTime(value: string): number {
  const m = /^\w{3} (\w{3}) (\d+) (\d\d):(\d\d)(?::(\d\d))? (\d{4})$/.exec(value);
  if (m) return Date.UTC(Number(m[6]), MONTHS[m[1]!]!, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5] ?? 0));
  const iso = value.replace(/^TZ=\S+ /, '').replace(/([+-]\d\d)(\d\d)$/, '$1:$2');
  const ms = Date.parse(iso);
  assert.ok(!Number.isNaN(ms), value);
  return ms;
}

test('spec_test.go TestActivation: which times a standard spec fires at', () => {
  const rows: Array<[string, string, boolean]> = [
    ['Mon Jul 9 15:00 2012', '0/15 * * * *', true],
    ['Mon Jul 9 15:45 2012', '0/15 * * * *', true],
    ['Mon Jul 9 15:40 2012', '0/15 * * * *', false],
    ['Mon Jul 9 15:05 2012', '5/15 * * * *', true],
    ['Mon Jul 9 15:20 2012', '5/15 * * * *', true],
    ['Mon Jul 9 15:50 2012', '5/15 * * * *', true],
    ['Sun Jul 15 15:00 2012', '0/15 * * Jul *', true],
    ['Sun Jul 15 15:00 2012', '0/15 * * Jun *', false],
    ['Sun Jul 15 08:30 2012', '30 08 ? Jul Sun', true],
    ['Sun Jul 15 08:30 2012', '30 08 15 Jul ?', true],
    ['Mon Jul 16 08:30 2012', '30 08 ? Jul Sun', false],
    ['Mon Jul 16 08:30 2012', '30 08 15 Jul ?', false],
    ['Mon Jul 9 15:00 2012', '@hourly', true],
    ['Mon Jul 9 15:04 2012', '@hourly', false],
    ['Mon Jul 9 15:00 2012', '@daily', false],
    ['Mon Jul 9 00:00 2012', '@daily', true],
    ['Mon Jul 9 00:00 2012', '@weekly', false],
    ['Sun Jul 8 00:00 2012', '@weekly', true],
    ['Sun Jul 8 01:00 2012', '@weekly', false],
    ['Sun Jul 8 00:00 2012', '@monthly', false],
    ['Sun Jul 1 00:00 2012', '@monthly', true],
    // both DOM and DOW restricted: either matches; one a star: both must
    ['Sun Jul 15 00:00 2012', '* * 1,15 * Sun', true],
    ['Fri Jun 15 00:00 2012', '* * 1,15 * Sun', true],
    ['Wed Aug 1 00:00 2012', '* * 1,15 * Sun', true],
    ['Sun Jul 15 00:00 2012', '* * */10 * Sun', true],
    ['Sun Jul 15 00:00 2012', '* * * * Mon', false],
    ['Mon Jul 9 00:00 2012', '* * 1,15 * *', false],
    ['Sun Jul 15 00:00 2012', '* * 1,15 * *', true],
    ['Sun Jul 15 00:00 2012', '* * */2 * Sun', true],
  ];
  for (const [time, spec, fires] of rows) {
    const at = getTime(time);
    assert.equal(parseStandard(spec).next(at - 1000) === at, fires, `${spec} at ${time}`);
  }
});

test('spec_test.go TestNext: next activations, wrapping fields, leap years and America/New_York / Sao_Paulo DST', () => {
  const rows: Array<[string, string, string]> = [
    ['Mon Jul 9 14:45 2012', '0 0/15 * * * *', 'Mon Jul 9 15:00 2012'],
    ['Mon Jul 9 14:59 2012', '0 0/15 * * * *', 'Mon Jul 9 15:00 2012'],
    ['Mon Jul 9 14:59:59 2012', '0 0/15 * * * *', 'Mon Jul 9 15:00 2012'],
    ['Mon Jul 9 15:45 2012', '0 20-35/15 * * * *', 'Mon Jul 9 16:20 2012'],
    ['Mon Jul 9 23:46 2012', '0 */15 * * * *', 'Tue Jul 10 00:00 2012'],
    ['Mon Jul 9 23:45 2012', '0 20-35/15 * * * *', 'Tue Jul 10 00:20 2012'],
    ['Mon Jul 9 23:35:51 2012', '15/35 20-35/15 * * * *', 'Tue Jul 10 00:20:15 2012'],
    ['Mon Jul 9 23:35:51 2012', '15/35 20-35/15 1/2 * * *', 'Tue Jul 10 01:20:15 2012'],
    ['Mon Jul 9 23:35:51 2012', '15/35 20-35/15 10-12 * * *', 'Tue Jul 10 10:20:15 2012'],
    ['Mon Jul 9 23:35:51 2012', '15/35 20-35/15 1/2 */2 * *', 'Thu Jul 11 01:20:15 2012'],
    ['Mon Jul 9 23:35:51 2012', '15/35 20-35/15 * 9-20 * *', 'Wed Jul 10 00:20:15 2012'],
    ['Mon Jul 9 23:35:51 2012', '15/35 20-35/15 * 9-20 Jul *', 'Wed Jul 10 00:20:15 2012'],
    ['Mon Jul 9 23:35 2012', '0 0 0 9 Apr-Oct ?', 'Thu Aug 9 00:00 2012'],
    ['Mon Jul 9 23:35 2012', '0 0 0 */5 Apr,Aug,Oct Mon', 'Tue Aug 1 00:00 2012'],
    ['Mon Jul 9 23:35 2012', '0 0 0 */5 Oct Mon', 'Mon Oct 1 00:00 2012'],
    ['Mon Jul 9 23:35 2012', '0 0 0 * Feb Mon', 'Mon Feb 4 00:00 2013'],
    ['Mon Jul 9 23:35 2012', '0 0 0 * Feb Mon/2', 'Fri Feb 1 00:00 2013'],
    ['Mon Dec 31 23:59:45 2012', '0 * * * * *', 'Tue Jan 1 00:00:00 2013'],
    ['Mon Jul 9 23:35 2012', '0 0 0 29 Feb ?', 'Mon Feb 29 00:00 2016'],
    ['2012-03-11T00:00:00-0500', 'TZ=America/New_York 0 30 2 11 Mar ?', '2013-03-11T02:30:00-0400'],
    ['2012-03-11T00:00:00-0500', 'TZ=America/New_York 0 0 * * * ?', '2012-03-11T01:00:00-0500'],
    ['2012-03-11T01:00:00-0500', 'TZ=America/New_York 0 0 * * * ?', '2012-03-11T03:00:00-0400'],
    ['2012-03-11T03:00:00-0400', 'TZ=America/New_York 0 0 * * * ?', '2012-03-11T04:00:00-0400'],
    ['2012-03-11T04:00:00-0400', 'TZ=America/New_York 0 0 * * * ?', '2012-03-11T05:00:00-0400'],
    ['2012-03-11T00:00:00-0500', 'CRON_TZ=America/New_York 0 0 * * * ?', '2012-03-11T01:00:00-0500'],
    ['2012-03-11T01:00:00-0500', 'CRON_TZ=America/New_York 0 0 * * * ?', '2012-03-11T03:00:00-0400'],
    ['2012-03-11T00:00:00-0500', 'TZ=America/New_York 0 0 1 * * ?', '2012-03-11T01:00:00-0500'],
    ['2012-03-11T01:00:00-0500', 'TZ=America/New_York 0 0 1 * * ?', '2012-03-12T01:00:00-0400'],
    ['2012-03-11T00:00:00-0500', 'TZ=America/New_York 0 0 2 * * ?', '2012-03-12T02:00:00-0400'],
    ['2012-11-04T00:00:00-0400', 'TZ=America/New_York 0 30 2 04 Nov ?', '2012-11-04T02:30:00-0500'],
    ['2012-11-04T01:45:00-0400', 'TZ=America/New_York 0 30 1 04 Nov ?', '2012-11-04T01:30:00-0500'],
    ['2012-11-04T00:00:00-0400', 'TZ=America/New_York 0 0 * * * ?', '2012-11-04T01:00:00-0400'],
    ['2012-11-04T01:00:00-0400', 'TZ=America/New_York 0 0 * * * ?', '2012-11-04T01:00:00-0500'],
    ['2012-11-04T01:00:00-0500', 'TZ=America/New_York 0 0 * * * ?', '2012-11-04T02:00:00-0500'],
    ['2012-11-04T00:00:00-0400', 'TZ=America/New_York 0 0 1 * * ?', '2012-11-04T01:00:00-0400'],
    ['2012-11-04T01:00:00-0400', 'TZ=America/New_York 0 0 1 * * ?', '2012-11-04T01:00:00-0500'],
    ['2012-11-04T01:00:00-0500', 'TZ=America/New_York 0 0 1 * * ?', '2012-11-05T01:00:00-0500'],
    ['2012-11-04T00:00:00-0400', 'TZ=America/New_York 0 0 2 * * ?', '2012-11-04T02:00:00-0500'],
    ['2012-11-04T02:00:00-0500', 'TZ=America/New_York 0 0 2 * * ?', '2012-11-05T02:00:00-0500'],
    ['2012-11-04T00:00:00-0400', 'TZ=America/New_York 0 0 3 * * ?', '2012-11-04T03:00:00-0500'],
    ['2012-11-04T03:00:00-0500', 'TZ=America/New_York 0 0 3 * * ?', '2012-11-05T03:00:00-0500'],
    ['TZ=America/New_York 2012-11-04T00:00:00-0400', 'TZ=America/New_York 0 0 3 3 * ?', '2012-12-03T03:00:00-0500'],
    ['2018-10-17T05:00:00-0400', 'TZ=America/Sao_Paulo 0 0 9 10 * ?', '2018-11-10T06:00:00-0500'],
    ['2018-02-14T05:00:00-0500', 'TZ=America/Sao_Paulo 0 0 9 22 * ?', '2018-02-22T07:00:00-0500'],
  ];
  for (const [from, spec, want] of rows) {
    assert.equal(parseCron(spec, SECOND_PARSER).next(getTime(from)), getTime(want), `${spec} after ${from}`);
  }
  // A schedule without a zone runs in the zone of the time it is given (the "TZ=... time" rows).
  const inZone: Array<[string, string, string]> = [
    ['2012-11-04T00:00:00-0400', '0 0 * * * ?', '2012-11-04T01:00:00-0400'],
    ['2012-11-04T01:00:00-0400', '0 0 * * * ?', '2012-11-04T01:00:00-0500'],
    ['2012-11-04T01:00:00-0400', '0 0 1 * * ?', '2012-11-04T01:00:00-0500'],
    ['2012-11-04T00:00:00-0400', '0 0 2 * * ?', '2012-11-04T02:00:00-0500'],
  ];
  for (const [from, spec, want] of inZone) assert.equal(parseCron(spec, SECOND_PARSER).next(getTime(from), 'America/New_York'), getTime(want), `${spec} after ${from} in New York`);
  // Unsatisfiable: Go's zero time.
  assert.equal(parseCron('0 0 0 30 Feb ?', SECOND_PARSER).next(getTime('Mon Jul 9 23:35 2012')), undefined);
  assert.equal(parseCron('0 0 0 31 Apr ?', SECOND_PARSER).next(getTime('Mon Jul 9 23:35 2012')), undefined);
});

test('spec_test.go TestErrors, parser_test.go TestRange / TestParseScheduleErrors: robfig\'s messages', () => {
  const rows: Array<[string, RegExp]> = [
    ['xyz', /^expected exactly 5 fields, found 1: \[xyz\]$/],
    ['60 0 * * *', /^end of range \(60\) above maximum \(59\): 60$/],
    ['0 60 * * *', /^end of range \(60\) above maximum \(23\): 60$/],
    ['0 0 * * XYZ', /^failed to parse int from XYZ: strconv\.Atoi: parsing "XYZ": invalid syntax$/],
    ['5--5 * * * *', /too many hyphens/],
    ['*/-12 * * * *', /negative number/],
    ['*//2 * * * *', /too many slashes/],
    ['0 5-3 * * *', /beyond end of range/],
    ['*/0 * * * *', /should be a positive number/],
    ['0 0 0 * *', /below minimum \(1\)/],
    ['@every Xm', /^failed to parse duration @every Xm: time: invalid duration "Xm"$/],
    ['@unrecognized', /^unrecognized descriptor: @unrecognized$/],
    ['* * * *', /^expected exactly 5 fields, found 4/],
    ['', /^empty spec string$/],
    ['TZ=Nowhere/Land * * * * *', /^provided bad location Nowhere\/Land: unknown time zone Nowhere\/Land$/],
    // TestSlash0NoHang
    ['TZ=America/New_York 15/0 * * * *', /step of range should be a positive number/],
    // robfig slices up to the first space: a panic Kruise's webhook recovers into this message
    ['TZ=UTC', /^invalid cron schedule: runtime error: slice bounds out of range \[:-1\]$/],
  ];
  for (const [spec, message] of rows) {
    assert.throws(() => parseStandard(spec), (e: unknown) => e instanceof CronParseError && message.test(e.message), spec);
  }
  // jan-x and friends (TestRange) via the month field with names
  assert.throws(() => parseStandard('0 0 1 jan-x *'), /failed to parse int from x/);
  assert.equal(parseStandard('0 0 1 jan-mar *').next(Date.UTC(2012, 2, 2)), Date.UTC(2013, 0, 1));
});

test('@every: Go durations, at least one second, whole seconds, from the second the time is in', () => {
  assert.equal(parseStandard('@every 2s').next(Date.UTC(2024, 0, 1, 0, 0, 0, 500)), Date.UTC(2024, 0, 1, 0, 0, 2));
  assert.equal(parseStandard('@every 1h30m').next(Date.UTC(2024, 0, 1)), Date.UTC(2024, 0, 1, 1, 30));
  assert.equal(parseStandard('@every 500ms').next(Date.UTC(2024, 0, 1)), Date.UTC(2024, 0, 1, 0, 0, 1), 'below a second rounds up to one');
  assert.equal(parseStandard('@every 2.7s').next(Date.UTC(2024, 0, 1)), Date.UTC(2024, 0, 1, 0, 0, 2), 'sub-seconds truncated');
  assert.equal(goParseDuration('1.5h'), 5_400_000);
  assert.equal(goParseDuration('-2m'), -120_000);
  assert.equal(goParseDuration('0'), 0);
  assert.throws(() => goParseDuration('1'), /^Error: time: missing unit in duration "1"$/);
  assert.throws(() => goParseDuration('1d'), /^Error: time: unknown unit "d" in duration "1d"$/);
  assert.throws(() => goParseDuration(''), /^Error: time: invalid duration ""$/);
  assert.throws(() => goParseDuration('.s'), /invalid duration/);
});

test('advancedcronjob_controller_test.go TestScheduleWithTimeZone: timeZone through formatSchedule', () => {
  const rows: Array<[string, string | undefined, string, string]> = [
    ['0 10 * * ?', undefined, '2022-09-05T09:01:00Z', '2022-09-05T10:00:00Z'],
    ['0 10 * * ?', undefined, '2022-09-05T11:01:00Z', '2022-09-06T10:00:00Z'],
    ['0 10 * * ?', 'Asia/Shanghai', '2022-09-05T09:01:00Z', '2022-09-06T02:00:00Z'],
    ['0 10 * * ?', 'Asia/Shanghai', '2022-09-06T01:01:00Z', '2022-09-06T02:00:00Z'],
    ['TZ=Asia/Shanghai 0 10 * * ?', undefined, '2022-09-06T01:01:00Z', '2022-09-06T02:00:00Z'],
  ];
  for (const [schedule, timeZone, previous, next] of rows) {
    const got = parseStandard(formatSchedule({ schedule, timeZone })).next(Date.parse(previous));
    assert.equal(new Date(got!).toISOString().replace('.000Z', 'Z'), next, `${schedule} ${timeZone ?? ''}`);
  }
  assert.equal(formatSchedule({ schedule: '0 10 * * ?', timeZone: 'Not/AZone' }), '0 10 * * ?', 'an unloadable zone is dropped (logged by Kruise)');
  assert.equal(timeZoneProblem('america/new_york'), 'unknown time zone america/new_york', 'zoneinfo names are case-sensitive');
  assert.equal(timeZoneProblem('Europe/Berlin'), undefined);
});
