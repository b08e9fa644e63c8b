// `npm run release` for this machine's platform only (the other platforms' archives are built the
// same way, but compiling them all would take the suite minutes): the archive's contents, SHA256SUMS,
// the krew manifest held to krew's own rules (test/helpers/krew-manifest.ts), an install laid out
// the way krew lays it out, run through real kubectl with no node on PATH, and a second run giving
// the same bytes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { KUBECTL_BIN, REPO_ROOT } from '../helpers/cli';
import { KNOWN_FIELDS, LICENSE_FILES, validateManifestFile, type Plugin } from '../helpers/krew-manifest';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; homepage: string; repository: { url: string } };
const VERSION = `v${pkg.version}`;
/** scripts/release.mjs KREW_PLATFORMS for the hosts that can run the result (not Windows: the install test is POSIX). */
const KREW_NAMES: Record<string, { os: string; arch: string } | undefined> = {
  'linux-x64': { os: 'linux', arch: 'amd64' },
  'linux-arm64': { os: 'linux', arch: 'arm64' },
  'darwin-x64': { os: 'darwin', arch: 'amd64' },
  'darwin-arm64': { os: 'darwin', arch: 'arm64' },
};
const TARGET = `${process.platform}-${process.arch}`;
const HOST = KREW_NAMES[TARGET];
const ARCHIVE = HOST && `kubectl-kruise_${VERSION}_${HOST.os}_${HOST.arch}.tar.gz`;
const skip = !HOST ? `no release target for ${TARGET} in this test` : !existsSync(KUBECTL_BIN) ? `${KUBECTL_BIN} is missing` : false;

const work = mkdtempSync(join(tmpdir(), 'kk-release-'));
const out1 = join(work, 'release-1');
const out2 = join(work, 'release-2');
/** The build's completions/ once it exists; before that, stand-in scripts under the same names. */
const repoCompletions = join(REPO_ROOT, 'completions');
const completions = existsSync(repoCompletions) ? repoCompletions : join(work, 'completions');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}
function release(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; viaNpm?: boolean; umask?: string } = {}): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  delete env.SOURCE_DATE_EPOCH;
  if (!opts.env?.KUBECTL_KRUISE_RELEASE_BASE_URL) delete env.KUBECTL_KRUISE_RELEASE_BASE_URL;
  const cmd = opts.viaNpm ? `npm run --silent release -- ${args.map((a) => `'${a}'`).join(' ')}` : `exec node ${join(REPO_ROOT, 'scripts', 'release.mjs')} ${args.map((a) => `'${a}'`).join(' ')}`;
  const r = spawnSync('sh', ['-c', `umask ${opts.umask ?? '022'}; ${cmd}`], { cwd: opts.cwd ?? REPO_ROOT, env, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

interface TarEntry {
  name: string;
  type: string;
  mode: number;
  uid: number;
  gid: number;
  uname: string;
  gname: string;
  mtime: number;
  data: Buffer;
}
/** Reads a ustar archive header by header (checksums verified), as an extractor would. */
function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  const str = (h: Buffer, off: number, len: number): string => h.subarray(off, off + len).toString('utf8').replace(/\0.*$/s, '');
  const num = (h: Buffer, off: number, len: number): number => parseInt(str(h, off, len).trim() || '0', 8);
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    assert.equal(num(h, 148, 8), sum, `header checksum at ${at}`);
    assert.equal(str(h, 257, 6), 'ustar', 'ustar magic');
    const size = num(h, 124, 12);
    const prefix = str(h, 345, 155);
    const name = (prefix ? `${prefix}/` : '') + str(h, 0, 100);
    entries.push({ name, type: str(h, 156, 1), mode: num(h, 100, 8), uid: num(h, 108, 8), gid: num(h, 116, 8), uname: str(h, 265, 32), gname: str(h, 297, 32), mtime: num(h, 136, 12), data: tar.subarray(at + 512, at + 512 + size) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

describe('npm run release (this platform)', { skip }, () => {
  let first: Run;
  let second: Run;

  before(() => {
    if (completions !== repoCompletions) {
      mkdirSync(completions);
      writeFileSync(join(completions, 'kubectl-kruise.bash'), '# bash completion (stand-in until the build generates completions/)\n');
      writeFileSync(join(completions, '_kubectl-kruise'), '#compdef kubectl-kruise\n');
      writeFileSync(join(completions, 'kubectl-kruise.fish'), '# fish completion\n');
    }
    const compArgs = completions === repoCompletions ? [] : [`--completions=${completions}`];
    first = release([`--target=${TARGET}`, `--out=${out1}`, ...compArgs], { viaNpm: true });
    // Same input from another folder, time zone, umask and download URL: same archive bytes.
    const cwd = join(work, 'elsewhere');
    mkdirSync(cwd);
    second = release([`--target=${TARGET}`, `--out=${out2}`, ...compArgs], { cwd, umask: '077', env: { TZ: 'Asia/Kolkata', KUBECTL_KRUISE_RELEASE_BASE_URL: 'https://downloads.example.test/kruise/' } });
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('writes the archive, SHA256SUMS that `sha256sum -c` accepts, and kruise.yaml', (t) => {
    assert.equal(first.code, 0, first.stderr);
    if (completions !== repoCompletions) t.diagnostic('completions/ is not generated in this checkout: stand-in scripts used');
    assert.deepEqual(readdirSync(out1).sort(), ['SHA256SUMS', 'krew-index', 'kruise.yaml', ARCHIVE!].sort());
    const check = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out1, encoding: 'utf8' });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.equal(check.stdout, `${ARCHIVE}: OK\n`);
    const archive = readFileSync(join(out1, ARCHIVE!));
    assert.equal(readFileSync(join(out1, 'SHA256SUMS'), 'utf8'), `${sha256(archive)}  ${ARCHIVE}\n`);
    t.diagnostic(`${ARCHIVE}: ${(archive.length / 1e6).toFixed(1)} MB`);
  });

  it('the archive holds kubectl-kruise, LICENSE, kubectl_complete-kruise and completions/, only files and folders krew can extract, with fixed owner, modes and time', () => {
    const gz = readFileSync(join(out1, ARCHIVE!));
    // RFC 1952 header: no FNAME/FEXTRA/FCOMMENT flags, MTIME 0, OS Unix.
    assert.deepEqual([...gz.subarray(0, 4)], [0x1f, 0x8b, 8, 0]);
    assert.equal(gz.readUInt32LE(4), 0, 'gzip header mtime');
    assert.equal(gz[9], 3, 'gzip header OS');
    const entries = readTar(gunzipSync(gz));
    const compFiles = readdirSync(completions).sort();
    assert.deepEqual(
      entries.map((e) => e.name),
      ['LICENSE', 'completions/', ...compFiles.map((f) => `completions/${f}`), 'kubectl-kruise', 'kubectl_complete-kruise'],
    );
    // GNU tar reads the same list (checksums, padding and end blocks as it expects).
    const gnu = spawnSync('tar', ['-tzf', join(out1, ARCHIVE!)], { encoding: 'utf8' });
    assert.equal(gnu.status, 0, gnu.stderr);
    assert.deepEqual(gnu.stdout.trim().split('\n'), entries.map((e) => e.name));
    const commitTime = Number(spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.trim());
    for (const e of entries) {
      // internal/download/downloader.go extractTARGZ handles TypeReg ('0') and TypeDir ('5') only.
      assert.ok(e.type === '0' || e.type === '5', `${e.name}: type ${e.type}`);
      const executable = e.type === '5' || e.name === 'kubectl-kruise' || e.name === 'kubectl_complete-kruise';
      assert.equal(e.mode, executable ? 0o755 : 0o644, `${e.name} mode`);
      assert.deepEqual([e.uid, e.gid, e.uname, e.gname], [0, 0, 'root', 'root'], `${e.name} owner`);
      assert.equal(e.mtime, commitTime, `${e.name} mtime (the last commit's time)`);
    }
    const byName = new Map(entries.map((e) => [e.name, e.data]));
    assert.ok(byName.get('LICENSE')!.equals(readFileSync(join(REPO_ROOT, 'LICENSE'))));
    assert.match(byName.get('LICENSE')!.toString(), /Apache License\s+Version 2\.0, January 2004/);
    assert.ok(byName.get('kubectl_complete-kruise')!.equals(readFileSync(join(REPO_ROOT, 'bin', 'kubectl_complete-kruise'))));
    for (const f of compFiles) assert.ok(byName.get(`completions/${f}`)!.equals(readFileSync(join(completions, f))), f);
    // The executable itself: an ELF/Mach-O file of the runtime's size, not a script.
    const exe = byName.get('kubectl-kruise')!;
    assert.ok(exe.length > 10e6, `kubectl-kruise is ${exe.length} bytes`);
    assert.notEqual(exe.subarray(0, 2).toString(), '#!');
  });

  it("kruise.yaml passes krew's validation (validate.go ValidatePlugin/validatePlatform/validateSelector, validate-krew-manifest validateManifestFile) and uses only types.go fields", () => {
    const manifest = parse(readFileSync(join(out1, 'kruise.yaml'), 'utf8')) as Plugin & Record<string, unknown>;
    assert.deepEqual(validateManifestFile('kruise.yaml', manifest), []);
    const unknown = (obj: object, known: string[]): string[] => Object.keys(obj).filter((k) => !known.includes(k));
    assert.deepEqual(unknown(manifest, KNOWN_FIELDS.plugin), []);
    assert.deepEqual(unknown(manifest.spec!, KNOWN_FIELDS.spec), []);
    for (const p of manifest.spec!.platforms!) {
      assert.deepEqual(unknown(p, KNOWN_FIELDS.platform), []);
      assert.deepEqual(unknown(p.selector!, KNOWN_FIELDS.selector), []);
    }
  });

  it('kruise.yaml: name kruise, the package version, homepage, descriptions, completion caveats, and the archive by its URL, sha256 and bin', () => {
    const manifest = parse(readFileSync(join(out1, 'kruise.yaml'), 'utf8')) as Plugin;
    assert.equal(manifest.apiVersion, 'krew.googlecontainertools.github.com/v1alpha2');
    assert.equal(manifest.kind, 'Plugin');
    assert.equal(manifest.metadata?.name, 'kruise');
    const spec = manifest.spec!;
    assert.equal(spec.version, VERSION);
    assert.equal(spec.homepage, pkg.homepage);
    assert.ok(spec.shortDescription!.length <= 60, `shortDescription "${spec.shortDescription}" should be a few words (krew search)`);
    assert.match(spec.description!, /OpenKruise/);
    assert.match(spec.description!, /sandbox/);
    assert.match(spec.caveats!, /kubectl_complete-kruise/);
    assert.match(spec.caveats!, new RegExp(`store/kruise/${VERSION.replace(/\./g, '\\.')}/kubectl_complete-kruise`));
    for (const f of ['kubectl-kruise.bash', '_kubectl-kruise', 'kubectl-kruise.fish']) assert.ok(spec.caveats!.includes(f), `caveats name ${f}`);
    const gh = /github\.com\/([^/]+)\/([^/.]+)/.exec(pkg.repository.url)!;
    assert.deepEqual(spec.platforms, [
      {
        selector: { matchLabels: HOST },
        uri: `https://github.com/${gh[1]}/${gh[2]}/releases/download/${VERSION}/${ARCHIVE}`,
        sha256: sha256(readFileSync(join(out1, ARCHIVE!))),
        bin: 'kubectl-kruise',
      },
    ]);
  });

  it('krew-index/ is the custom index serving it (#32): plugins/kruise.yaml is kruise.yaml, the README adds the index by its URL and installs kubectl-kruise/kruise', () => {
    const index = join(out1, 'krew-index');
    assert.deepEqual(readdirSync(index).sort(), ['README.md', 'plugins']);
    assert.deepEqual(readdirSync(join(index, 'plugins')), ['kruise.yaml']);
    assert.ok(readFileSync(join(index, 'plugins', 'kruise.yaml')).equals(readFileSync(join(out1, 'kruise.yaml'))));
    const owner = /github\.com\/([^/]+)\//.exec(pkg.repository.url)![1];
    const readme = readFileSync(join(index, 'README.md'), 'utf8');
    assert.ok(readme.includes(`kubectl krew index add kubectl-kruise https://github.com/${owner}/krew-index.git\n`), readme);
    assert.ok(readme.includes('kubectl krew install kubectl-kruise/kruise\n'), readme);
  });

  it('a second run from another folder, time zone and umask gives the same archive (same SHA256SUMS); the download URL comes from KUBECTL_KRUISE_RELEASE_BASE_URL', () => {
    assert.equal(second.code, 0, second.stderr);
    assert.equal(readFileSync(join(out2, 'SHA256SUMS'), 'utf8'), readFileSync(join(out1, 'SHA256SUMS'), 'utf8'));
    const manifest = parse(readFileSync(join(out2, 'kruise.yaml'), 'utf8')) as Plugin;
    assert.equal(manifest.spec!.platforms![0]!.uri, `https://downloads.example.test/kruise/${ARCHIVE}`);
    // Apart from the URL, the same manifest.
    const first = readFileSync(join(out1, 'kruise.yaml'), 'utf8').replace(/uri: .*/, '');
    assert.equal(readFileSync(join(out2, 'kruise.yaml'), 'utf8').replace(/uri: .*/, ''), first);
  });

  it('installed the way krew lays it out, `kubectl kruise version --client` and `kubectl plugin list` work with no node on PATH; the caveats make `kubectl kruise <TAB>` complete', () => {
    const home = join(work, 'home');
    const krew = join(home, '.krew');
    const store = join(krew, 'store', 'kruise', VERSION);
    const manifest = parse(readFileSync(join(out1, 'kruise.yaml'), 'utf8')) as Plugin;
    const platform = manifest.spec!.platforms!.find((p) => p.selector?.matchLabels?.os === HOST!.os && p.selector.matchLabels.arch === HOST!.arch)!;
    // install.go install(): verify the sha256, extract, move "*" to store/<name>/<version> (no
    // `files`: applyDefaults), link bin/kubectl-<name> to the `bin` file.
    const archive = join(out1, ARCHIVE!);
    assert.equal(sha256(readFileSync(archive)), platform.sha256);
    assert.equal(platform.files, undefined);
    mkdirSync(store, { recursive: true });
    const x = spawnSync('tar', ['-xzf', archive, '-C', store], { encoding: 'utf8' });
    assert.equal(x.status, 0, x.stderr);
    mkdirSync(join(krew, 'bin'));
    symlinkSync(join(store, platform.bin!), join(krew, 'bin', 'kubectl-kruise'));
    // validate-krew-manifest validateLicenseFileExists: a licence among the installed files.
    assert.ok(readdirSync(store).some((f) => LICENSE_FILES.includes(f.toLowerCase())), 'LICENSE installed');

    const tools = join(work, 'tools'); // kubectl and nothing else
    mkdirSync(tools);
    symlinkSync(KUBECTL_BIN, join(tools, 'kubectl'));
    const env = { HOME: home, PATH: `${join(krew, 'bin')}:${tools}`, KUBECONFIG: join(work, 'no-cluster.kubeconfig'), CI: 'true', NO_COLOR: '1' };
    const run = (cmd: string, args: string[], extra: Record<string, string> = {}): Run => {
      const r = spawnSync(cmd, args, { cwd: home, env: { ...env, ...extra }, encoding: 'utf8', timeout: 60_000 });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    for (const dir of env.PATH.split(':')) assert.ok(!readdirSync(dir).includes('node'), `no node in ${dir}`);

    const version = run(KUBECTL_BIN, ['kruise', 'version', '--client']);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, new RegExp(`^Plugin Version: ${VERSION.replace(/\./g, '\\.')}$`, 'm'));
    const list = run(KUBECTL_BIN, ['plugin', 'list']);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(list.stdout.split('\n').filter((l) => l.startsWith('/')), [join(krew, 'bin', 'kubectl-kruise')]);
    assert.doesNotMatch(list.stdout + list.stderr, /warning|overshadow/i);

    // The caveats' step: copy kubectl_complete-kruise next to the link (a shell is on a user's PATH).
    copyFileSync(join(store, 'kubectl_complete-kruise'), join(krew, 'bin', 'kubectl_complete-kruise'));
    const shell = join(work, 'shell');
    mkdirSync(shell);
    symlinkSync('/bin/sh', join(shell, 'sh'));
    const withShell = { PATH: `${env.PATH}:${shell}` };
    const words = run(KUBECTL_BIN, ['__complete', 'kruise', 'roll'], withShell);
    assert.equal(words.code, 0, words.stderr);
    assert.match(words.stdout, /^rollout$/m);
    const listAgain = run(KUBECTL_BIN, ['plugin', 'list'], withShell);
    assert.equal(listAgain.code, 0, listAgain.stderr);
    assert.doesNotMatch(listAgain.stdout + listAgain.stderr, /warning|overshadow/i);
  });

  it('bad input fails at once with one line: a missing completions folder (exit 1), an unknown target, a non-http base URL or a krew index URL that is not a git URL (exit 2)', () => {
    const out = join(work, 'never');
    const missing = release([`--target=${TARGET}`, `--out=${out}`, `--completions=${join(work, 'no-such-folder')}`]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: release: .*no-such-folder is missing: .*completion scripts.*npm run build/);
    assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
    const target = release(['--target=solaris-sparc', `--out=${out}`]);
    assert.equal(target.code, 2);
    assert.equal(target.stderr, 'error: release: unknown target "solaris-sparc" (known: linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64)\n');
    const url = release([`--target=${TARGET}`, '--base-url=ftp://example.test/x', `--out=${out}`]);
    assert.equal(url.code, 2);
    assert.equal(url.stderr, 'error: release: --base-url "ftp://example.test/x" is not an http(s) URL\n');
    const index = release([`--target=${TARGET}`, '--index-url=../krew-index', `--out=${out}`]);
    assert.equal(index.code, 2);
    assert.equal(index.stderr, 'error: release: --index-url "../krew-index" is not a git URL (https://, ssh:// or git@host:path)\n');
    assert.equal(existsSync(out), false, 'nothing written');
  });
});
