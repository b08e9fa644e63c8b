// Help in kubectl's shape (src/cli/help.ts): section order and wording of kubectl's templates,
// pflag's flag lines, wrapping only on a terminal (80/100/120 columns).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Option } from 'commander';
import { KruiseCommand, formatHelp, flagDefault, wordWrap, wrapLimit, flagSentence } from '../../../src/cli/help';

function tree(): { root: KruiseCommand; group: KruiseCommand; leaf: KruiseCommand } {
  const root = new KruiseCommand('kubectl kruise').description('OpenKruise from the command line').helpCommand(false);
  const group = root.command('rollout').description('manage rollouts').helpCommand(false);
  const leaf = group
    .command('status')
    .description('wait until a rollout is done')
    .usage('TYPE/NAME... [flags]')
    .argument('[resources...]')
    .addOption(new Option('-w, --watch [bool]', 'watch until done').default(undefined, 'true'))
    .option('--timeout <duration>', 'give up after this long', '0')
    .option('-f, --filename <file...>', 'a manifest')
    .option('--ci <flavour>', 'CI flavour', 'auto')
    .option('--dry-run [mode]', 'none, client or server')
    .option('-R, --recursive', 'subdirectories too')
    .option('-l, --selector <selector>', 'a label selector')
    .notes(`
      States: Progressing, Complete.
      Exit codes: 0 done, 3 timed out.`)
    .examples(`
      # Wait for a CloneSet
      kubectl kruise rollout status cloneset/web

      # As JSON Lines
      kubectl kruise rollout status cloneset/web -o json`);
  group.command('undo').description('roll back');
  return { root, group, leaf };
}

test('a command: description, notes, Examples, Options (by name, pflag defaults, no --help), Usage, the global options tip', () => {
  const { leaf } = tree();
  assert.equal(
    formatHelp(leaf, 0),
    [
      'Wait until a rollout is done.',
      '',
      'States: Progressing, Complete.',
      'Exit codes: 0 done, 3 timed out.',
      '',
      'Examples:',
      '  # Wait for a CloneSet',
      '  kubectl kruise rollout status cloneset/web',
      '',
      '  # As JSON Lines',
      '  kubectl kruise rollout status cloneset/web -o json',
      '',
      'Options:',
      "    --ci='auto':\n\tCI flavour.",
      '',
      "    --dry-run='none':\n\tnone, client or server.",
      '',
      '    -f, --filename=[]:\n\tA manifest.',
      '',
      '    -R, --recursive=false:\n\tSubdirectories too.',
      '',
      "    -l, --selector='':\n\tA label selector.",
      '',
      '    --timeout=0:\n\tGive up after this long.',
      '',
      '    -w, --watch=true:\n\tWatch until done.',
      '',
      'Usage:',
      '  kubectl kruise rollout status TYPE/NAME... [flags] [options]',
      '',
      'Use "kubectl kruise options" for a list of global command-line options (applies to all commands).',
      '',
    ].join('\n'),
  );
});

test('a group: Available Commands by name, padded as cobra pads them, SUBCOMMAND usage, and the contract\'s closing line', () => {
  const { root, group } = tree();
  assert.equal(
    formatHelp(group, 0),
    [
      'Manage rollouts.',
      '',
      'Available Commands:',
      '  status        Wait until a rollout is done',
      '  undo          Roll back',
      '',
      'Usage:',
      '  kubectl kruise rollout SUBCOMMAND [options]',
      '',
      'Use "kubectl kruise rollout <command> --help" for more information about a given command.',
      '',
    ].join('\n'),
  );
  assert.match(formatHelp(root, 0), /\nUsage:\n {2}kubectl kruise \[flags\] \[options\]\n\nUse "kubectl kruise <command> --help" for more information about a given command\.\n$/);
});

test('wrapping only on a terminal of 80 columns or more, as kubectl\'s responsive writer; flag descriptions 10 columns narrower', () => {
  assert.deepEqual([79, 80, 99, 100, 119, 120, 200, 0].map(wrapLimit), [0, 80, 80, 100, 100, 120, 120, 0]);
  const long = 'word '.repeat(40).trim();
  assert.deepEqual(wordWrap(long, 0), [long]);
  assert.ok(wordWrap(long, 30).every((l) => l.length <= 30));
  assert.deepEqual(wordWrap('a-very-long-unbreakable-word x', 10), ['a-very-long-unbreakable-word', 'x']);
  const { root } = tree();
  const cmd = root.command('long').description(long).option('--x <v>', long);
  const narrow = formatHelp(cmd, 80);
  const lines = narrow.split('\n');
  // (The closing tip stays one line: scripts and the contract look for it whole.)
  assert.ok(lines.filter((l) => !l.startsWith('Use "')).every((l) => l.replace(/^\t/, '        ').length <= 80), narrow);
  assert.ok(lines.filter((l) => l.startsWith('\t')).length > 1, 'the flag description wraps, each line after a tab');
  assert.equal(formatHelp(cmd, 0).split('\n')[0], `${long.charAt(0).toUpperCase()}${long.slice(1)}.`);
});

test('flag defaults as pflag prints them: strings quoted, numbers and durations bare, lists [], switches false', () => {
  const root = new KruiseCommand('k');
  const c = root
    .command('c')
    .option('--a <v>')
    .option('--b <v>', '', '60s')
    .option('--c <v>', '', 'kubectl-kruise')
    .option('--d')
    .option('--e [bool]')
    .option('--f [strategy]')
    .option('--g <v>', '', (v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
  const byName = Object.fromEntries(c.options.map((o) => [o.long, flagDefault(o)]));
  assert.deepEqual(byName, { '--a': "''", '--b': '60s', '--c': "'kubectl-kruise'", '--d': 'false', '--e': 'false', '--f': "'none'", '--g': '[]' });
});

test("flag descriptions read as kubectl's (a capital and a full stop), except where they open with a value or a name", () => {
  assert.equal(flagSentence('watch until done'), 'Watch until done.');
  assert.equal(flagSentence('json: one JSON object per change'), 'json: one JSON object per change.');
  assert.equal(flagSentence('none, client or server'), 'none, client or server.');
  assert.equal(flagSentence('Kruise Rollout: paused, step=N or complete'), 'Kruise Rollout: paused, step=N or complete.');
  assert.equal(flagSentence('give up after this long (e.g. 5m).'), 'Give up after this long (e.g. 5m).');
  assert.equal(flagSentence('kruise-manager namespace'), 'kruise-manager namespace.');
});
