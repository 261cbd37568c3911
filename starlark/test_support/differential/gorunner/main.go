// Command gorunner is our reference runner for differential tests and benchmarks.
//
// It executes Starlark programs with starlark-go (Debian's golang-starlark-dev) in the dialect of
// the MCP server's execute tool: default file options (no while, set, recursion, global
// reassignment or top-level control), the universe without set, plus abs, sum, json and math.
// It calls main() when the module defines it and prints one JSON object per program:
//
//	{"ok":true,"value":<json>,"repr":"...","steps":N,"ns":N}
//	{"ok":false,"errorClass":"syntax|resolve|runtime|steps|timeout|conversion|panic","message":"...","steps":N,"ns":N}
//
// Floats in "value" are written with a '.' or an exponent so readers can tell them from ints.
// "ns" is the in-process execution time (parse to result), without process start.
//
// Usage:
//
//	gorunner [--max-steps N] [--timeout MS] [--steps] FILE   one program ("-" reads stdin)
//	gorunner --batch                               JSON lines {"src","maxSteps","timeoutMs"} on stdin
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/ioutil"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

type request struct {
	Src       string `json:"src"`
	MaxSteps  uint64 `json:"maxSteps"`
	TimeoutMs int64  `json:"timeoutMs"`
}

type result struct {
	Ok         bool            `json:"ok"`
	Value      json.RawMessage `json:"value,omitempty"`
	Repr       *string         `json:"repr,omitempty"`
	ErrorClass string          `json:"errorClass,omitempty"`
	Message    string          `json:"message,omitempty"`
	Line       int32           `json:"line,omitempty"` // innermost frame in the program
	Col        int32           `json:"col,omitempty"`
	Steps      uint64          `json:"steps"`
	Ns         int64           `json:"ns"`
}

func main() {
	// The dialect: these are already the package defaults in this starlark-go version; set them
	// explicitly so a reader sees the options in one place.
	resolve.AllowSet = false
	resolve.AllowGlobalReassign = false
	resolve.AllowRecursion = false

	maxSteps := flag.Uint64("max-steps", 0, "step budget (0 = unlimited)")
	timeoutMs := flag.Int64("timeout", 0, "wall-clock budget in ms (0 = unlimited)")
	batch := flag.Bool("batch", false, "read JSON-line requests from stdin")
	printSteps := flag.Bool("steps", false, "also print the steps used to stderr (they are always in the JSON)")
	flag.Parse()

	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)

	if *batch {
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<20), 1<<26)
		for in.Scan() {
			var req request
			if err := json.Unmarshal(in.Bytes(), &req); err != nil {
				fmt.Fprintln(os.Stderr, "gorunner: bad request:", err)
				os.Exit(2)
			}
			enc.Encode(run(req))
			out.Flush()
		}
		return
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gorunner [--max-steps N] [--timeout MS] FILE | --batch")
		os.Exit(2)
	}
	var src []byte
	var err error
	if flag.Arg(0) == "-" {
		src, err = ioutil.ReadAll(os.Stdin)
	} else {
		src, err = ioutil.ReadFile(flag.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gorunner:", err)
		os.Exit(2)
	}
	res := run(request{Src: string(src), MaxSteps: *maxSteps, TimeoutMs: *timeoutMs})
	enc.Encode(res)
	if *printSteps {
		fmt.Fprintf(os.Stderr, "steps: %d\n", res.Steps)
	}
	if !res.Ok {
		out.Flush()
		os.Exit(1)
	}
}

func run(req request) (res result) {
	// Old starlark-go versions have compiler panics on some invalid programs (e.g. break inside
	// a def inside a loop); report them as their own class so tests can skip those programs.
	defer func() {
		if r := recover(); r != nil {
			res = result{ErrorClass: "panic", Message: fmt.Sprint(r)}
		}
	}()
	thread := &starlark.Thread{Name: "main", Print: func(*starlark.Thread, string) {}}
	if req.MaxSteps > 0 {
		thread.SetMaxExecutionSteps(req.MaxSteps)
	}
	if req.TimeoutMs > 0 {
		timer := time.AfterFunc(time.Duration(req.TimeoutMs)*time.Millisecond, func() { thread.Cancel("timeout") })
		defer timer.Stop()
	}
	start := time.Now()
	defer func() {
		res.Ns = time.Since(start).Nanoseconds()
		res.Steps = thread.ExecutionSteps()
	}()

	globals, err := starlark.ExecFile(thread, "<program>", req.Src, predeclared())
	if err != nil {
		return failure(err)
	}
	var value starlark.Value = starlark.None
	if fn, ok := globals["main"]; ok {
		if value, err = starlark.Call(thread, fn, nil, nil); err != nil {
			return failure(err)
		}
	}
	body, err := toJSON(value)
	if err != nil {
		return result{ErrorClass: "conversion", Message: err.Error()}
	}
	repr := value.String() // String() is repr for every value, strings included
	return result{Ok: true, Value: body, Repr: &repr}
}

func failure(err error) result {
	var syn syntax.Error
	var res resolve.ErrorList
	var eval *starlark.EvalError
	switch {
	case errors.As(err, &syn):
		return result{ErrorClass: "syntax", Message: syn.Error()}
	case errors.As(err, &res):
		return result{ErrorClass: "resolve", Message: res[0].Error()}
	case errors.As(err, &eval):
		msg := eval.Msg
		switch msg {
		case "Starlark computation cancelled: too many steps":
			return result{ErrorClass: "steps", Message: msg}
		case "Starlark computation cancelled: timeout":
			return result{ErrorClass: "timeout", Message: msg}
		}
		res := result{ErrorClass: "runtime", Message: msg}
		// The innermost frame that is program code (built-ins report "<builtin>").
		for i := 0; i < len(eval.CallStack); i++ {
			if pos := eval.CallStack.At(i).Pos; pos.Filename() == "<program>" {
				res.Line, res.Col = pos.Line, pos.Col
				break
			}
		}
		return res
	}
	return result{ErrorClass: "runtime", Message: err.Error()}
}

func predeclared() starlark.StringDict {
	d := starlark.StringDict{
		"abs":  starlark.NewBuiltin("abs", abs),
		"sum":  starlark.NewBuiltin("sum", sum),
		"json": jsonModule,
		"math": mathModule(),
	}
	for name, v := range starlark.Universe {
		if name != "set" {
			d[name] = v
		}
	}
	return d
}

// toJSON converts the final value the way the execute tool does: None, bool, string, int64,
// finite float, list/tuple as arrays, dicts with string keys as objects.
func toJSON(v starlark.Value) (json.RawMessage, error) {
	var b strings.Builder
	if err := writeJSON(&b, v, 0); err != nil {
		return nil, err
	}
	return json.RawMessage(b.String()), nil
}

func writeJSON(b *strings.Builder, v starlark.Value, depth int) error {
	if depth > 1000 {
		return errors.New("value too deep")
	}
	switch x := v.(type) {
	case starlark.NoneType:
		b.WriteString("null")
	case starlark.Bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case starlark.Int:
		i, ok := x.Int64()
		if !ok {
			return fmt.Errorf("int %s out of int64 range", x.String())
		}
		b.WriteString(strconv.FormatInt(i, 10))
	case starlark.Float:
		f := float64(x)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("non-finite float %s", x.String())
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		b.WriteString(s)
	case starlark.String:
		s := string(x)
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		q, _ := json.Marshal(s)
		b.Write(q)
	case *starlark.List, starlark.Tuple:
		b.WriteByte('[')
		iter := starlark.Iterate(x)
		defer iter.Done()
		var e starlark.Value
		for i := 0; iter.Next(&e); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *starlark.Dict:
		b.WriteByte('{')
		for i, item := range x.Items() {
			k, ok := item[0].(starlark.String)
			if !ok {
				return fmt.Errorf("dict key %s is not a string", item[0].Type())
			}
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(strings.ToValidUTF8(string(k), "\uFFFD"))
			b.Write(q)
			b.WriteByte(':')
			if err := writeJSON(b, item[1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("cannot convert %s to JSON", v.Type())
	}
	return nil
}

func abs(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("abs", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case starlark.Float:
		return starlark.Float(math.Abs(float64(x))), nil
	case starlark.Int:
		if x.Sign() >= 0 {
			return x, nil
		}
		return starlark.Binary(syntax.MINUS, starlark.MakeInt(0), x)
	}
	return nil, fmt.Errorf("abs: got %s, want int or float", x.Type())
}

// sum(iterable, start=0) adds the elements with the + operator, like Python's sum.
func sum(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var iterable starlark.Iterable
	var acc starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackArgs("sum", args, kwargs, "iterable", &iterable, "start?", &acc); err != nil {
		return nil, err
	}
	iter := iterable.Iterate()
	defer iter.Done()
	var x starlark.Value
	for iter.Next(&x) {
		var err error
		if acc, err = starlark.Binary(syntax.PLUS, acc, x); err != nil {
			return nil, fmt.Errorf("sum: %v", err)
		}
	}
	return acc, nil
}
