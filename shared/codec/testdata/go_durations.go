// Regenerates go_durations.json: `go run go_durations.go > go_durations.json` (Go 1.19, Debian).
package main
import ("fmt";"time";"encoding/json")
func main(){
 in := []string{"0","5s","30s","1478s","-5s","+5s","-0","0.5s","1.5h","90s","5m","1h1m","300ms","2h45m0.5s","1.0s","1.s",".5s","1.004s","1.0040s","100.00100s","10ns","11us","12µs","12μs","13ms","14s","15m","16h","3h30m","10.5s4m","-2m3.4s","1h2m3s4ms5us6ns","39h9m14.425s","52763797000ns","0.3333333333333333333h","9007199254740993ns","9223372036854775807ns","9223372036854775.807us","9223372036854.775807ms","-9223372036854775808ns","-9223372036854775807ns","0.100000000000000000000h","0.830103483285477580700h","","3",".","-","s",".s","+.s","1d","1.5x","9223372036854775808ns","9223372036854775.808us","3000000h","9223372036854775808ns","-9223372036854775809ns","1hh","1h 2m","- 1s","0x10s","1e3s","00s","07m"}
 type R struct{In string `json:"in"`; Ns *int64 `json:"ns,string"`; Str string `json:"str"`; Err string `json:"err"`}
 var out []R
 for _, s := range in { d, err := time.ParseDuration(s); r := R{In:s}; if err != nil { r.Err = err.Error() } else { n := int64(d); r.Ns=&n; r.Str = d.String() }; out = append(out, r) }
 b,_ := json.Marshal(out); fmt.Println(string(b))
}
