const t0 = performance.now();
await import(Deno.args[0]);
console.log(Deno.args[0], (performance.now() - t0).toFixed(0), "ms import");
