package main

// The json module's import path depends on the starlark-go version: "starlarkjson" until 2021,
// "lib/json" after. build_gorunner (go_runner.ts) rewrites this file for the installed layout.

import starlarkjson "go.starlark.net/starlarkjson"

var jsonModule = starlarkjson.Module
