// autocannon setupClient for bench.mjs, loaded by autocannon's worker (hence CommonJS): each
// connection takes its own list of requests from the JSON file BENCH_CLIENT_PLAN names (an array
// of request lists), so connections write to different contacts and a DELETE never repeats.
const fs = require('node:fs');

const plan = JSON.parse(fs.readFileSync(process.env.BENCH_CLIENT_PLAN, 'utf8'));
let next = 0;

module.exports = (client) => {
  client.setRequests(plan[next++ % plan.length]);
};
