Deno.serve({ hostname: "127.0.0.1", port: Number(Deno.args[0]), onListen() {} }, () => new Response("ok"));
