// Command echo is the smallest Lambda function, for the tests of harness/lambda/lambdalocal: it answers
// the event it got with its pid and the memory size it was given.
package main

import (
	"context"
	"encoding/json"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
)

type answer struct {
	Event    json.RawMessage `json:"event"`
	PID      int             `json:"pid"`
	MemoryMB string          `json:"memoryMB"`
}

func main() {
	lambda.Start(func(_ context.Context, event json.RawMessage) (answer, error) {
		return answer{Event: event, PID: os.Getpid(), MemoryMB: os.Getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")}, nil
	})
}
