// The official TypeScript MCP SDK's own client, driven by the Go e2e tests (e2e/mcp_typescript_test.go).
//
// Reads one JSON object on stdin: {"url": "...", "key": "...", "steps": [...]}, runs the steps in
// order with Client + StreamableHTTPClientTransport and prints one JSON object on stdout:
// {"steps": [{"op": ..., "result" | "error": ...}, ...]}. Every step runs even when an earlier one
// failed; the Go test judges the outcome.
//
// Steps:
//   {"op": "listTools"}                      every page of tools/list (the SDK validates each tool)
//   {"op": "call", "name": "...", "arguments": {...}}
//                                            tools/call; the SDK checks structuredContent against
//                                            the tool's outputSchema. A string argument "$prev.a.b"
//                                            is replaced by the field a.b of the previous call's
//                                            structuredContent ("$prev.results.0.record_id").
//   {"op": "listResources"}, {"op": "readResource", "uri": "..."}
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const input = JSON.parse(await new Promise((resolve, reject) => {
  let s = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (d) => (s += d));
  process.stdin.on("end", () => resolve(s));
  process.stdin.on("error", reject);
}));

const headers = input.key ? { Authorization: `Bearer ${input.key}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(input.url), { requestInit: { headers } });
const client = new Client({ name: "capgate-e2e-ts", version: "1.0.0" });
const out = { steps: [] };

function dig(obj, path) {
  return path.split(".").reduce((v, k) => (v == null ? undefined : v[/^\d+$/.test(k) ? Number(k) : k]), obj);
}

function resolve(v, prev) {
  if (typeof v === "string" && v.startsWith("$prev.")) return dig(prev, v.slice(6));
  if (Array.isArray(v)) return v.map((x) => resolve(x, prev));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, prev)]));
  return v;
}

try {
  await client.connect(transport);
  out.serverVersion = client.getServerVersion();
  out.instructions = client.getInstructions();
} catch (e) {
  out.connectError = String(e && e.message ? e.message : e);
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

let prev;
for (const step of input.steps) {
  const rec = { op: step.op, name: step.name ?? step.uri };
  try {
    switch (step.op) {
      case "listTools": {
        const tools = [];
        let cursor;
        do {
          const page = await client.listTools(cursor ? { cursor } : {});
          tools.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor);
        rec.result = tools;
        break;
      }
      case "call": {
        const args = resolve(step.arguments ?? {}, prev);
        rec.arguments = args;
        rec.result = await client.callTool({ name: step.name, arguments: args });
        if (!rec.result.isError) prev = rec.result.structuredContent;
        break;
      }
      case "listResources":
        rec.result = await client.listResources();
        break;
      case "readResource":
        rec.result = await client.readResource({ uri: step.uri });
        break;
      default:
        throw new Error(`unknown step ${step.op}`);
    }
  } catch (e) {
    rec.error = String(e && e.message ? e.message : e);
  }
  out.steps.push(rec);
}
await client.close();
process.stdout.write(JSON.stringify(out));
