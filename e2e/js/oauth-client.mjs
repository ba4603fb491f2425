// The official TypeScript MCP SDK's own OAuth client (OAuthClientProvider, auth(), finishAuth)
// signing in to the real gateway, driven by e2e/mcp_oauth_test.go.
//
// Reads one JSON object on stdin:
//   {"url": ".../mcp", "cookie": "capgate_console=…", "csrf": "…", "mode": "test",
//    "capabilities": "weather.forecast,recipes.search", "call": {"name": "...", "arguments": {...}}}
// and prints one JSON object on stdout recording each stage; the Go test judges it:
//   unauthorized   the first connect failed with the SDK's UnauthorizedError (the gateway's 401 and
//                  WWW-Authenticate sent the SDK to discovery, registration and authorization)
//   registered     the client information the SDK registered (RFC 7591)
//   authorizeUrl   the authorization URL the SDK opened (PKCE S256, state, resource)
//   consentStatus  the consent page's status when the owner's browser opens it
//   redirect       where the owner's "Allow" sent the browser (the client's redirect URI + code)
//   tokens1        the token pair of the code exchange; tools1 and call1 made with it
//   tokens2        the pair after auth() refreshed (a rotated refresh token); call2 made with it
//   revokeStatus   the revocation endpoint's answer to revoking the refresh token (RFC 7009)
//   afterRevoke    {status, wwwAuthenticate, body} of /mcp called with the revoked access token
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth, UnauthorizedError, discoverAuthorizationServerMetadata } from "@modelcontextprotocol/sdk/client/auth.js";

const input = JSON.parse(await new Promise((resolve, reject) => {
  let s = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (d) => (s += d));
  process.stdin.on("end", () => resolve(s));
  process.stdin.on("error", reject);
}));

const out = {};
const redirectUrl = "http://127.0.0.1:33418/callback";

// An in-memory provider, as a host keeps one per server: it stores what the SDK hands it and,
// instead of opening a browser, answers the consent page as the signed-in owner would.
class Provider {
  constructor() {
    this._tokens = undefined;
    this._client = undefined;
    this._verifier = undefined;
    this.code = undefined;
  }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return { client_name: "capgate e2e host", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() { return "st-" + Math.random().toString(36).slice(2); }
  clientInformation() { return this._client; }
  saveClientInformation(info) { this._client = info; out.registered = info; }
  tokens() { return this._tokens; }
  saveTokens(t) { this._tokens = t; }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
  async redirectToAuthorization(authorizationUrl) {
    out.authorizeUrl = authorizationUrl.toString();
    const headers = { Cookie: input.cookie };
    const page = await fetch(authorizationUrl, { headers, redirect: "manual" });
    out.consentStatus = page.status;
    out.consentPage = (await page.text()).slice(0, 200000);
    const q = authorizationUrl.searchParams;
    const form = new URLSearchParams({
      _csrf: input.csrf, client_id: q.get("client_id"), redirect_uri: q.get("redirect_uri"), state: q.get("state") ?? "",
      code_challenge: q.get("code_challenge"), code_challenge_method: q.get("code_challenge_method") ?? "",
      response_type: q.get("response_type"), resource: q.get("resource") ?? "", mode: input.mode,
      capabilities: input.capabilities ?? "", decision: "allow",
    });
    const res = await fetch(new URL("/console/oauth/authorize", authorizationUrl), {
      method: "POST", headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" }, body: form, redirect: "manual",
    });
    out.redirect = res.headers.get("location");
    const back = new URL(out.redirect);
    if (back.searchParams.get("state") !== q.get("state")) throw new Error("the state came back changed: " + out.redirect);
    this.code = back.searchParams.get("code");
  }
}

const url = new URL(input.url);
const provider = new Provider();

async function connected() {
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const client = new Client({ name: "capgate-e2e-oauth", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

function fail(stage, e) {
  out.error = `${stage}: ${e && e.stack ? e.stack : e}`;
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

// 1. No token: the gateway's 401 starts discovery, registration and the authorization request.
const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
try {
  await new Client({ name: "capgate-e2e-oauth", version: "1.0.0" }).connect(transport);
  fail("connect", "connected without signing in");
} catch (e) {
  if (!(e instanceof UnauthorizedError)) fail("connect", e);
  out.unauthorized = true;
}
if (!provider.code) fail("authorize", "no authorization code came back");

// 2. The code for tokens (PKCE verifier), then a session with the access token.
try {
  await transport.finishAuth(provider.code);
  out.tokens1 = provider.tokens();
  const { client } = await connected();
  out.tools1 = (await client.listTools()).tools.map((t) => t.name);
  out.call1 = await client.callTool(input.call);
  await client.close();
} catch (e) {
  fail("token and first call", e);
}

// 3. Refresh: auth() with a refresh token rotates the pair.
try {
  out.refreshResult = await auth(provider, { serverUrl: url });
  out.tokens2 = provider.tokens();
  const { client } = await connected();
  out.call2 = await client.callTool(input.call);
  await client.close();
} catch (e) {
  fail("refresh", e);
}

// 4. Revocation (RFC 7009) of the refresh token ends the grant: the access token is refused.
try {
  const meta = await discoverAuthorizationServerMetadata(new URL("/", url));
  const res = await fetch(meta.revocation_endpoint, {
    method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: out.tokens2.refresh_token, token_type_hint: "refresh_token", client_id: out.registered.client_id }),
  });
  out.revokeStatus = res.status;
  const after = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${out.tokens2.access_token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  out.afterRevoke = { status: after.status, wwwAuthenticate: after.headers.get("www-authenticate"), body: await after.text() };
} catch (e) {
  fail("revoke", e);
}
process.stdout.write(JSON.stringify(out));
