/**
 * The floor of the start-up benchmark: a bare `Deno.serve` answering every request with 200 on
 * the port given as the only argument.
 *
 * @module
 */
Deno.serve(
  { hostname: "127.0.0.1", port: Number(Deno.args[0]), onListen: () => {} },
  () => new Response("ok"),
);
