// An MCP client Hark did not write: the official TypeScript SDK drives
// `hark mcp` the way Claude Desktop and other clients built on it do.
// The e2e test (app/e2e/mcp_ts_test.go) starts it with
//   HARK_BIN       the hark to start as "hark mcp"
//   HARK_WORK      a folder for the commands
//   HARK_MCP_SDK   the node_modules folder the SDK is installed in
// It prints one JSON line per step on stdout, and waits for a line on
// stdin before it cancels the running call.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const sdk = (p) => import(pathToFileURL(join(process.env.HARK_MCP_SDK, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const work = process.env.HARK_WORK;
const say = (step, v) => process.stdout.write(JSON.stringify({ step, ...v }) + "\n");
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const errors = [];
const client = new Client({ name: "TypeScript Client", version: "1.0.0" });
client.onerror = (e) => errors.push(String(e && e.message ? e.message : e));
// The transport passes only a few variables on unless told: hark needs
// the test's HOME, HARK_HOME and runtime folder to reach its app.
const transport = new StdioClientTransport({ command: process.env.HARK_BIN, args: ["mcp"], env: process.env, stderr: "inherit" });
await client.connect(transport);
say("connected", { server: client.getServerVersion() });

const tools = await client.listTools();
say("list", { tools: tools.tools });

const call = async (step, args, opts) => {
  try {
    const r = await client.callTool({ name: "execute_terminal_command", arguments: args }, undefined, opts);
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
// the SDK's 60 s request timeout while the approval waits.
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
// SDK reports it through onerror. A ping is answered after it would be.
await client.ping();
await client.close();
say("done", { errors });
// stdin stays open as long as the test keeps it: end here.
process.exit(0);
