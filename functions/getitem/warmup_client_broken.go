//go:build brokenwarmclient

package main

import (
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// warmupClient, in the deliberately broken build (-tags brokenwarmclient), is a second client with
// an HTTP client of its own: the warm-up then warms a connection the handler never uses, as a
// warm-up on a client other than the handler's does, and claim T3's test must catch it.
func warmupClient(c *dynamodb.Client) *dynamodb.Client {
	return dynamodb.New(c.Options(), func(o *dynamodb.Options) { o.HTTPClient = awshttp.NewBuildableClient() })
}
