// connect.mjs measures what an IDE built on the official TypeScript MCP
// SDK waits for when it starts WorkRail, beside a raw JSON-RPC client doing
// the same: spawn `workrail mcp`, initialize, tools/list. It prints one
// JSON line {"sdk":[ms…],"raw":[ms…]}, the runs interleaved so both see
// the same machine. Usage: node connect.mjs WORKRAIL_BINARY RUNS
// (WORKRAIL_HOME names the home, whose daemon is already running).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 20);

async function viaSDK() {
  const t0 = performance.now();
  const transport = new StdioClientTransport({ command: bin, args: ["mcp"], env: process.env, stderr: "ignore" });
  const client = new Client({ name: "workrail-sdk-bench", version: "1" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const took = performance.now() - t0;
  if (tools.length === 0) throw new Error("tools/list answered no tools");
  await client.close();
  return took;
}

async function raw() {
  const t0 = performance.now();
  const child = spawn(bin, ["mcp"], { env: process.env, stdio: ["pipe", "pipe", "ignore"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const send = (m) => child.stdin.write(JSON.stringify(m) + "\n");
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  await lines.next();
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  const { value } = await lines.next();
  const took = performance.now() - t0;
  if (!JSON.parse(value).result.tools.length) throw new Error("tools/list answered no tools");
  child.stdin.end();
  await new Promise((done) => child.on("exit", done));
  return took;
}

const out = { sdk: [], raw: [] };
for (let i = 0; i < runs; i++) {
  out.sdk.push(await viaSDK());
  out.raw.push(await raw());
}
console.log(JSON.stringify(out));
