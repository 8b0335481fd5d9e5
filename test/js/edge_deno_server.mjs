// keel's edge handler under Deno (Deno.serve takes the handler as it is), for edge_deno_test.mjs:
//   deno run --allow-net=127.0.0.1 --allow-read=REPO edge_deno_server.mjs PACKAGE_DIR MODEL_BASE_URL KEY
// Prints "PORT n" when listening.
const [pkg, base, key] = Deno.args;
const {createEdgeHandler} = await import(new URL(`file://${pkg}/edge.mjs`).href);
const add = {name: 'add', description: 'adds two numbers', readOnly: true,
  parameters: {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}}, run: ({a, b}) => String(a + b)};
const handler = await createEdgeHandler({model: {baseUrl: base, name: 'mock', retry: {maxAttempts: 1}}, tools: [add],
  apiKey: key, modelName: 'keel-deno'});
Deno.serve({hostname: '127.0.0.1', port: 0, onListen: ({port}) => console.log(`PORT ${port}`)}, handler);
