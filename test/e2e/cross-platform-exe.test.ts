// The executables built for other platforms (scripts/build-exe.mjs --target=...): the linux-arm64 one is
// run here under qemu-user (Debian's qemu-user with the arm64 C library, installed by
// scripts/test-deps.sh), offline and against a sandbox, so a cross-built runtime or bytecode that does not
// work shows up before a release. darwin and windows executables are checked for their file format only:
// nothing here can run them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, kubectl } from '../helpers/cli';
import { startSandbox, waitUntil, type Sandbox } from '../helpers/sandbox';

const QEMU = '/usr/bin/qemu-aarch64';
const SYSROOT = '/usr/aarch64-linux-gnu';
const skip = process.platform === 'linux' && process.arch === 'x64' ? false : 'builds and emulates from a linux-x64 machine';

function head(file: string, n: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(n);
    readSync(fd, b, 0, n, 0);
    return b;
  } finally {
    closeSync(fd);
  }
}

describe('executables built for other platforms', { skip }, () => {
  const out = mkdtempSync(join(tmpdir(), 'kk-cross-'));
  const targets = ['linux-arm64', 'darwin-arm64', 'windows-x64'];
  let sb: Sandbox | undefined;

  before(() => {
    // Into the repository's dist/exe/<target>/ (what the release archives), not dist/exe/kubectl-kruise.
    const b = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-exe.mjs'), `--target=${targets.join(',')}`], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
    assert.equal(b.status, 0, b.stderr);
  });
  after(async () => {
    await sb?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  const exe = (t: string): string => join(REPO_ROOT, 'dist', 'exe', t, t.startsWith('windows') ? 'kubectl-kruise.exe' : 'kubectl-kruise');
  const arm64 = (args: string[], env: NodeJS.ProcessEnv = {}): ReturnType<typeof spawnSync> =>
    spawnSync(QEMU, ['-L', SYSROOT, exe('linux-arm64'), ...args], { encoding: 'utf8', timeout: 120_000, env: { PATH: '/usr/bin:/bin', HOME: out, CI: 'true', NO_COLOR: '1', ...env } });

  it('each file is an executable of its platform: ELF aarch64, Mach-O arm64 (code-signed), PE x86-64', () => {
    const elf = head(exe('linux-arm64'), 20);
    assert.equal(elf.subarray(0, 4).toString('latin1'), '\x7fELF');
    assert.equal(elf.readUInt16LE(18), 183, 'e_machine EM_AARCH64');
    const macho = head(exe('darwin-arm64'), 8);
    assert.equal(macho.readUInt32LE(0), 0xfeedfacf, 'MH_MAGIC_64');
    assert.equal(macho.readUInt32LE(4), 0x0100000c, 'CPU_TYPE_ARM64');
    // macOS on Apple silicon kills an arm64 executable with no code signature: Bun signs it ad hoc.
    const full = readFileSync(exe('darwin-arm64'));
    const commands: number[] = [];
    for (let i = 0, off = 32; i < full.readUInt32LE(16); i++, off += full.readUInt32LE(off + 4)) commands.push(full.readUInt32LE(off));
    assert.ok(commands.includes(0x1d), 'LC_CODE_SIGNATURE');
    const pe = head(exe('windows-x64'), 0x200);
    assert.equal(pe.subarray(0, 2).toString('latin1'), 'MZ');
    const at = pe.readUInt32LE(0x3c);
    assert.equal(pe.subarray(at, at + 4).toString('latin1'), 'PE\0\0');
    assert.equal(pe.readUInt16LE(at + 4), 0x8664, 'IMAGE_FILE_MACHINE_AMD64');
  });

  it('linux-arm64 under qemu: version --client and an offline explain partition', () => {
    assert.ok(existsSync(QEMU) && existsSync(SYSROOT), 'qemu-user and libc6-arm64-cross are missing: bash scripts/test-deps.sh');
    const v = arm64(['version', '--client']);
    assert.equal(v.status, 0, String(v.stderr));
    assert.match(String(v.stdout), /^Plugin Version: v\d+\.\d+\.\d+/);
    const e = arm64(['explain', 'partition', '--replicas', '8', '--partition', '90%']);
    assert.equal(e.status, 0, String(e.stderr));
    assert.match(String(e.stdout), /expectedUpdatedReplicas 1/);
  });

  it('linux-arm64 under qemu: set image and a finished rollout status against a sandbox', async () => {
    sb = await startSandbox();
    const yaml = join(out, 'cloneset.yaml');
    writeFileSync(yaml, `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "nginx:1.26"}]}
`);
    assert.equal((await kubectl(['apply', '-f', yaml], sb.kubeconfig)).code, 0);
    const env = { KUBECONFIG: sb.kubeconfig };
    const set = arm64(['set', 'image', 'cloneset/web', 'app=nginx:1.27'], env);
    assert.equal(set.status, 0, String(set.stderr));
    assert.equal(String(set.stdout), 'cloneset.apps.kruise.io/web image updated\n');
    const status = arm64(['rollout', 'status', 'cloneset/web', '--timeout=90s'], env);
    assert.equal(status.status, 0, String(status.stderr));
    assert.match(String(status.stdout), /cloneset "web" successfully rolled out\n$/);
    const images = await waitUntil('pods on nginx:1.27', async () => {
      const r = await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}'], sb!.kubeconfig);
      return r.stdout === 'nginx:1.27 nginx:1.27' ? r.stdout : undefined;
    });
    assert.equal(images, 'nginx:1.27 nginx:1.27');
  });
});
