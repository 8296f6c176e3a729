// An MCP client Hark did not write, of the SDK's second generation: the
// official TypeScript client package (@modelcontextprotocol/client, v2)
// pinned to protocol 2026-07-28, where there is no initialize: it probes
// with server/discover (on a sibling hark mcp it starts and stops) and
// then names itself in every request's _meta.
// The e2e test (app/e2e/mcp_ts_test.go) starts it with
//   HARK_BIN       the hark to start as "hark mcp"
//   HARK_WORK      a folder for the commands
//   HARK_MCP_SDK   the node_modules folder the client is installed in
// It prints one JSON line per step on stdout, the steps mcpclient.mjs
// prints, and waits for a line on stdin before it cancels the running call.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const pkg = (p) => import(pathToFileURL(join(process.env.HARK_MCP_SDK, "@modelcontextprotocol/client/dist", p)).href);
const { Client } = await pkg("index.mjs");
const { StdioClientTransport } = await pkg("stdio.mjs");

const work = process.env.HARK_WORK;
const say = (step, v) => process.stdout.write(JSON.stringify({ step, ...v }) + "\n");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const errors = [];
const client = new Client({ name: "TypeScript Client v2", version: "2.0.0" },
  { versionNegotiation: { mode: { pin: "2026-07-28" } } });
client.onerror = (e) => errors.push(String(e && e.message ? e.message : e));
const transport = new StdioClientTransport({ command: process.env.HARK_BIN, args: ["mcp"], env: process.env, stderr: "inherit" });
await client.connect(transport);
say("connected", { server: client.getServerVersion(), era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion() });

const tools = await client.listTools();
say("list", { tools: tools.tools });

const call = async (step, args, opts) => {
  try {
    const r = await client.callTool({ name: "execute_terminal_command", arguments: args }, opts);
    say(step, { isError: r.isError === true, structured: r.structuredContent, text: r.content?.[0]?.text });
  } catch (e) {
    say(step, { thrown: String(e && e.message ? e.message : e), code: e?.code });
  }
};

await call("safe", { command: "ls", workingDirectory: work });
await call("forbidden", { command: "sudo rm -rf /" });
await call("bad arguments", { command: 42 });
await call("bad folder", { command: "ls", workingDirectory: "relative/dir" });

// Needs approval: the test answers it from the tray. Progress resets
// the client's 60 s request timeout while the approval waits.
let progress = 0;
say("approval asked", {});
await call("approval", { command: "touch " + join(work, "ts-approved"), workingDirectory: work },
  { onprogress: () => progress++, resetTimeoutOnProgress: true, timeout: 120000 });
say("progress", { count: progress });

// Cancellation: abort a running command once the test says it runs.
const ac = new AbortController();
const running = call("cancelled", { command: "sleep 2719", workingDirectory: work }, { signal: ac.signal });
say("cancel ready", {});
await lines.next();
ac.abort("the test cancels");
await running;

await call("after", { command: "echo still here", workingDirectory: work });
// Let a late answer to the cancelled call arrive, if Hark sent one: the
// client reports it through onerror. 2026-07-28 has no ping: a listing
// the client may not serve from its cache is answered after it would be.
await client.listTools(undefined, { cacheMode: "bypass" });
await client.close();
say("done", { errors });
// stdin stays open as long as the test keeps it: end here.
process.exit(0);
