for (const m of Deno.args) {
  const t0 = performance.now();
  await import(m);
  console.log(m, (performance.now() - t0).toFixed(0), "ms");
}
