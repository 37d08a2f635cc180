package main

import (
	"fmt"
	"net"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The values CLAIMS_WARMUP_OUTAGE takes: where the warm-up goes instead of DynamoDB, so that
// claim T4 can be tried on Lambda, where nobody can take DynamoDB away. Both are endpoints inside
// the function's own sandbox (loopback), and only the warm-up uses them: the handler's GetItem
// still goes to DynamoDB.
const (
	outageRefused = "refused" // nothing listens: the connection is refused at once
	outageStalled = "stalled" // a listener that accepts and never answers: the handshake hangs
)

// outageEndpoint opens the sandbox's endpoint for how and returns its URL; the listener of a
// stall stays open for the life of the process, holding what it accepts.
func outageEndpoint(how string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("CLAIMS_WARMUP_OUTAGE = %q: %w", how, err)
	}
	url := "https://" + ln.Addr().String()
	switch how {
	case outageRefused:
		return url, ln.Close()
	case outageStalled:
		go func() {
			var held []net.Conn
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				held = append(held, c) // never read, never answered, never closed
			}
		}()
		return url, nil
	}
	_ = ln.Close()
	return "", fmt.Errorf("CLAIMS_WARMUP_OUTAGE = %q; want %q, %q or unset", how, outageRefused, outageStalled)
}

// outageClient is client pointed at endpoint: the same options, HTTP client and connection pool.
func outageClient(client *dynamodb.Client, endpoint string) *dynamodb.Client {
	return dynamodb.New(client.Options(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
}
