package main

import (
	"errors"
	"fmt"
	"math"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// mathModule is the dialect's math module, written after the documented behaviour of
// go.starlark.net/lib/math (absent from the Debian snapshot): every function takes int or float
// positionally and returns a float, except ceil and floor, which return ints.
func mathModule() *starlarkstruct.Module {
	unary := map[string]func(float64) float64{
		"acos": math.Acos, "acosh": math.Acosh, "asin": math.Asin, "asinh": math.Asinh,
		"atan": math.Atan, "atanh": math.Atanh, "cos": math.Cos, "cosh": math.Cosh,
		"exp": math.Exp, "fabs": math.Abs, "gamma": math.Gamma, "round": math.Round,
		"sin": math.Sin, "sinh": math.Sinh, "sqrt": math.Sqrt, "tan": math.Tan, "tanh": math.Tanh,
		"degrees": func(x float64) float64 { return 360 * x / (2 * math.Pi) },
		"radians": func(x float64) float64 { return 2 * math.Pi * x / 360 },
	}
	binary := map[string]func(float64, float64) float64{
		"atan2": math.Atan2, "copysign": math.Copysign, "hypot": math.Hypot,
		"mod": math.Mod, "pow": math.Pow, "remainder": math.Remainder,
	}
	members := starlark.StringDict{
		"e":     starlark.Float(math.E),
		"pi":    starlark.Float(math.Pi),
		"ceil":  starlark.NewBuiltin("ceil", rounding(math.Ceil)),
		"floor": starlark.NewBuiltin("floor", rounding(math.Floor)),
		"log":   starlark.NewBuiltin("log", logBuiltin),
	}
	for name, fn := range unary {
		fn := fn
		members[name] = starlark.NewBuiltin(name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x floatOrInt
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			return starlark.Float(fn(float64(x))), nil
		})
	}
	for name, fn := range binary {
		fn := fn
		members[name] = starlark.NewBuiltin(name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, y floatOrInt
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &x, &y); err != nil {
				return nil, err
			}
			return starlark.Float(fn(float64(x), float64(y))), nil
		})
	}
	return &starlarkstruct.Module{Name: "math", Members: members}
}

type floatOrInt float64

func (p *floatOrInt) Unpack(v starlark.Value) error {
	switch x := v.(type) {
	case starlark.Int:
		f, err := starlark.AsFloat(x)
		if !err {
			return errors.New("int too large to convert to float")
		}
		*p = floatOrInt(f)
		return nil
	case starlark.Float:
		*p = floatOrInt(x)
		return nil
	}
	return fmt.Errorf("got %s, want float or int", v.Type())
}

func rounding(fn func(float64) float64) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x starlark.Value
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &x); err != nil {
			return nil, err
		}
		switch x := x.(type) {
		case starlark.Int:
			return x, nil
		case starlark.Float:
			return starlark.NumberToInt(starlark.Float(fn(float64(x))))
		}
		return nil, fmt.Errorf("%s: got %s, want float or int", b.Name(), x.Type())
	}
}

func logBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x floatOrInt
	base := floatOrInt(math.E)
	if err := starlark.UnpackPositionalArgs("log", args, kwargs, 1, &x, &base); err != nil {
		return nil, err
	}
	if base == 1 {
		return nil, errors.New("division by zero")
	}
	if base == math.E {
		return starlark.Float(math.Log(float64(x))), nil
	}
	return starlark.Float(math.Log(float64(x)) / math.Log(float64(base))), nil
}
