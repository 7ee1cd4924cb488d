// An MCP client that talks to WorkRail the way an IDE does: it spawns
// `workrail mcp` (the stdio shim) on a home folder, writes one JSON-RPC
// request per line on its stdin and reads one reply per line on its stdout.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

/** ToolResult is one tools/call reply: its structuredContent and isError. */
export interface ToolResult {
  /** kind is structuredContent.kind: step, complete, blocked, error, … */
  kind: string;
  /** structured is the whole structuredContent object. */
  structured: Record<string, any>;
  isError: boolean;
}

type Pending = { resolve: (v: any) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

/** Mcp is one `workrail mcp` process, initialized and ready for tool calls. */
export class Mcp {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private stderr = '';
  private exited: Promise<void>;

  private constructor(private proc: ChildProcessWithoutNullStreams) {
    // A dead shim shows up as 'exit' below; its broken stdin pipe must not crash the runner.
    proc.stdin.on('error', () => {});
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d: string) => { this.stderr += d; });
    const lines = createInterface({ input: proc.stdout });
    lines.on('line', (line) => this.onLine(line));
    this.exited = new Promise((resolve) => proc.on('exit', () => {
      this.failAll(new Error(`workrail mcp exited; stderr:\n${this.stderr}`));
      resolve();
    }));
  }

  /** open spawns `bin mcp` on home and performs the initialize handshake. */
  static async open(bin: string, home: string): Promise<Mcp> {
    // In home, as an IDE runs it in a workspace: from this checkout the
    // daemon would observe (and the pages show) its git branch.
    const proc = spawn(bin, ['mcp'], {
      cwd: home,
      env: { ...process.env, WORKRAIL_HOME: home, WORKRAIL_PORT: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const m = new Mcp(proc);
    await m.request('initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'workrail-console-e2e', version: '1' },
    });
    m.notify('notifications/initialized');
    return m;
  }

  /** call invokes a tool and returns its structured result; a JSON-RPC error throws. */
  async call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const res = await this.request('tools/call', { name, arguments: args });
    const structured = res?.structuredContent;
    if (!structured || typeof structured !== 'object') {
      throw new Error(`${name}: no structuredContent in ${JSON.stringify(res)}`);
    }
    return { kind: String(structured.kind), structured, isError: res.isError === true };
  }

  /** close ends stdin (the shim exits on EOF) and waits; it kills a shim that lingers. */
  async close(): Promise<void> {
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private request(method: string, params: unknown, timeoutMs = 30_000): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no reply within ${timeoutMs} ms; shim stderr:\n${this.stderr}`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  private notify(method: string, params?: unknown) {
    this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }) + '\n');
  }

  private failAll(err: Error) {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }

  private onLine(line: string) {
    if (!line.trim()) return;
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      // stdout carries protocol bytes only: anything else fails every waiting call.
      this.failAll(new Error(`workrail mcp printed a non-JSON line on stdout: ${line}`));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return; // a notification or a reply nobody waits for
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error) p.reject(new Error(`JSON-RPC error ${msg.error.code}: ${msg.error.message}`));
    else p.resolve(msg.result);
  }
}
