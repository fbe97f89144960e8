// One of the processes of the restart test (agent-restart.test.ts): sends COUNT requests, one after the other, each on
// a new connection to the agent's socket, and prints one JSON line per request: {"i", "status", "ms", "at"} or
// {"i", "error", "ms", "at"} (at: when the answer came, ms since the epoch). Also the load of the package's upgrade test
// (test/integration/deb). Usage: node socket-client.mjs SOCKET COUNT PAUSE_MS BODY_JSON
import { request } from 'node:http';

const [socketPath, countText, pauseText, body] = process.argv.slice(2);
const count = Number(countText);
const pauseMs = Number(pauseText);

function once() {
  return new Promise((resolve) => {
    const started = Date.now();
    const req = request({
      socketPath, method: 'POST', path: '/v1/ensure', agent: false, timeout: 60_000,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, ms: Date.now() - started, ...(res.statusCode === 200 ? {} : { body: text.slice(0, 300) }) }));
      res.on('error', (error) => resolve({ error: error.code ?? error.message, ms: Date.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 60 s')));
    req.on('error', (error) => resolve({ error: error.code ?? error.message, ms: Date.now() - started }));
    req.end(body);
  });
}

for (let i = 0; i < count; i += 1) {
  const result = await once();
  process.stdout.write(`${JSON.stringify({ i, ...result, at: Date.now() })}\n`);
  await new Promise((resolve) => setTimeout(resolve, pauseMs));
}
