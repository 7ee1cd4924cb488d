// The real binary and a real daemon for the Console tests: built once with
// `go build`, started on a fresh home folder with WORKRAIL_PORT=0, found
// through the daemon.json it writes, stopped with SIGTERM.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from '@playwright/test';

/** repoRoot is the Go module root (this file lives in e2e/console). */
export const repoRoot = path.resolve(__dirname, '..', '..');

/** DaemonInfo is daemon.json. */
export interface DaemonInfo {
  pid: number;
  url: string;
  socket: string;
  version: string;
  startedAt: string;
  appliedConfigHash: string;
}

/** Workspace is one temp folder holding the built binary and the home folder. */
export interface Workspace {
  root: string;
  bin: string;
  home: string;
}

/**
 * makeWorkspace creates /tmp/wr-console-XXXXXX with bin/ and home/ (0700).
 * It stays short: the home's daemon.sock must fit in a unix socket path.
 */
export function makeWorkspace(): Workspace {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wr-console-'));
  const home = path.join(root, 'home');
  fs.mkdirSync(path.join(root, 'bin'));
  fs.mkdirSync(home, { mode: 0o700 });
  fs.chmodSync(home, 0o700);
  return { root, bin: path.join(root, 'bin', 'workrail'), home };
}

/** build compiles ./cmd/workrail into ws.bin. */
export function build(ws: Workspace) {
  execFileSync('go', ['build', '-o', ws.bin, './cmd/workrail'], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** loginLink asks the daemon for a one-time Console login link, as a person does: `workrail console --print`. */
export function loginLink(ws: Workspace): string {
  const out = execFileSync(ws.bin, ['console', '--print'], { env: { ...process.env, WORKRAIL_HOME: ws.home }, encoding: 'utf8' });
  const link = out.match(/http:\/\/\S+\/login\?token=\S+/);
  if (!link) throw new Error(`workrail console --print printed no link:\n${out}`);
  return link[0];
}

/**
 * logInAs logs in as the owner does (a link from `workrail console
 * --print`) and writes the login's cookie to path as a storage state.
 */
export async function logInAs(ws: Workspace, path: string) {
  const owner = await request.newContext();
  try {
    const login = await owner.get(loginLink(ws), { maxRedirects: 0 });
    if (login.status() !== 303) throw new Error(`logging in to the Console: ${login.status()} ${await login.text()}`);
    await owner.storageState({ path });
  } finally {
    await owner.dispose();
  }
}

export function readInfo(home: string): DaemonInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(home, 'daemon.json'), 'utf8'));
  } catch {
    return undefined; // not written yet, or being written
  }
}

/** Daemon is a `workrail daemon` this process started. */
export class Daemon {
  private exit: Promise<number | null>;
  private log: string;

  private constructor(readonly ws: Workspace, private proc: ChildProcess, readonly info: DaemonInfo) {
    this.log = path.join(ws.root, 'daemon.log');
    this.exit = exitOf(proc);
  }

  /** start launches the daemon on ws.home and waits (15 s at most) for its daemon.json. */
  static async start(ws: Workspace): Promise<Daemon> {
    const log = path.join(ws.root, 'daemon.log');
    const out = fs.openSync(log, 'a');
    const proc = spawn(ws.bin, ['daemon'], {
      env: { ...process.env, WORKRAIL_HOME: ws.home, WORKRAIL_PORT: '0' },
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    const exited = exitOf(proc);
    let gone = false;
    exited.then(() => { gone = true; });
    const deadline = Date.now() + 15_000;
    for (;;) {
      const info = readInfo(ws.home);
      if (info && info.pid === proc.pid) return new Daemon(ws, proc, info);
      if (gone) throw new Error(`workrail daemon exited before writing daemon.json:\n${readLog(log)}`);
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        await exited;
        throw new Error(`workrail daemon wrote no daemon.json within 15 s:\n${readLog(log)}`);
      }
      await sleep(20);
    }
  }

  /** stop sends SIGTERM and waits 10 s for the exit, then SIGKILLs. */
  async stop() {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill('SIGTERM');
    const code = await Promise.race([this.exit, sleep(10_000).then(() => 'timeout' as const)]);
    if (code === 'timeout') {
      console.error(`workrail daemon pid ${this.proc.pid} ignored SIGTERM for 10 s; killing it`);
      this.proc.kill('SIGKILL');
      await this.exit;
    } else if (code !== 0) {
      console.error(`workrail daemon exited with ${code}:\n${readLog(this.log)}`);
    }
  }
}

/**
 * killStrays SIGKILLs any `<bin> daemon` still running (a shim may start
 * one of its own if it cannot reach ours). bin lives in this run's own
 * temp folder, so only processes this run started can match.
 */
export function killStrays(bin: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let args: string[];
    try {
      args = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (args[0] === bin && args[1] === 'daemon') {
      try {
        process.kill(Number(name), 'SIGKILL');
        pids.push(Number(name));
      } catch {
        // already gone
      }
    }
  }
  return pids;
}

function exitOf(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve(proc.exitCode);
    else proc.once('exit', (code) => resolve(code));
  });
}

function readLog(log: string): string {
  try {
    return fs.readFileSync(log, 'utf8');
  } catch {
    return '(no log)';
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
