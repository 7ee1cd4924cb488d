// session.mjs connects to WorkRail with an official TypeScript MCP client
// and does what an IDE and its agent do first: read the server's
// instructions, list tools, prompts and resources, get a prompt, run
// wr.hello through, and read the session back as a resource. It prints
// one JSON line of what it saw, for e2e's TestTypeScriptClients to judge.
//
// Usage: node session.mjs SDK TRANSPORT
//   SDK: v1 (@modelcontextprotocol/sdk, up to protocol 2025-11-25) or
//        v2 (@modelcontextprotocol/client, pinned to protocol 2026-07-28)
//   TRANSPORT: stdio (spawns $WORKRAIL_BIN mcp) or http (the daemon's
//        /mcp at $WORKRAIL_URL with the bearer $WORKRAIL_TOKEN)
const [sdk, transportKind] = process.argv.slice(2);

async function clientOf() {
  const info = { name: `workrail-e2e-${sdk}`, version: "1" };
  if (sdk === "v1") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    return { client: new Client(info), StdioClientTransport, StreamableHTTPClientTransport };
  }
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const client = new Client(info, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  return { client, StdioClientTransport, StreamableHTTPClientTransport };
}

function transportOf(t) {
  if (transportKind === "stdio") {
    return new t.StdioClientTransport({ command: process.env.WORKRAIL_BIN, args: ["mcp"], env: process.env, stderr: "ignore" });
  }
  return new t.StreamableHTTPClientTransport(new URL("/mcp", process.env.WORKRAIL_URL), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.WORKRAIL_TOKEN}` } },
  });
}

const structured = (r) => r.structuredContent;

const t = await clientOf();
const { client } = t;
const transport = transportOf(t);
// v1 keeps the version it negotiated only in an HTTP transport: hear it
// as it is handed over.
let negotiated = null;
const set = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => {
  negotiated = v;
  set?.(v);
};
await client.connect(transport);
const out = {
  protocolVersion: client.getNegotiatedProtocolVersion?.() ?? negotiated,
  instructions: client.getInstructions() ?? "",
  server: client.getServerVersion()?.name ?? "",
};
out.tools = (await client.listTools()).tools.map((x) => x.name);
const prompts = (await client.listPrompts()).prompts;
out.prompts = prompts.map((p) => p.name);
const bug = prompts.find((p) => p.name === "wr.bug_investigation");
out.bugArguments = bug ? (bug.arguments ?? []).map((a) => a.name) : [];
const got = await client.getPrompt({ name: "wr.hello", arguments: {} });
out.promptText = got.messages[0].content.text;
try {
  await client.getPrompt({ name: "wr.bug_investigation", arguments: { depth: "bottomless" } });
  out.badPrompt = "accepted";
} catch (e) {
  out.badPrompt = String(e.message ?? e);
}

// wr.hello, the agent writing its own notes.
let r = structured(await client.callTool({ name: "start_workflow", arguments: { workflowId: "wr.hello" } }));
out.kinds = [r.kind];
for (let i = 0; r.kind !== "complete" && i < 10; i++) {
  const args = { stateToken: r.stateToken, ackToken: r.ackToken, output: { notesMarkdown: `Did step ${i + 1} of wr.hello myself.` } };
  r = structured(await client.callTool({ name: "continue_workflow", arguments: args }));
  out.kinds.push(r.kind);
}
out.session = r.session?.sessionId ?? "";
const resources = (await client.listResources()).resources;
out.resources = resources.map((x) => ({ uri: x.uri, name: x.name, description: x.description ?? "" }));
const read = await client.readResource({ uri: `workrail://sessions/${out.session}` });
out.sessionMarkdown = read.contents[0].text;
await client.close();
console.log(JSON.stringify(out));
