// What the npm client tests share: named checks that print "ok - NAME" or "not ok - NAME" and go
// on, the test server's count of model calls (to see that a failed run was not run again), and
// the exit status at the end.
let failed = 0;

export async function check(name, fn) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (error) {
    failed += 1;
    console.log(`not ok - ${name}`);
    console.error(error);
  }
}

// How many model calls keel_openai_test_server's mock model has answered; `url` is the server's
// address, with or without "/v1".
export async function countModelCalls(url, apiKey) {
  const r = await fetch(`${url.replace(/\/v1$/, '')}/test/model-calls`, { headers: { Authorization: `Bearer ${apiKey}` } });
  return (await r.json()).count;
}

// Exits 1 when a check failed.
export function finish(name) {
  if (failed > 0) {
    console.error(`${name}: ${failed} check(s) failed`);
    process.exit(1);
  }
  console.log(`${name}: all checks passed`);
}
