package dynalite

import (
	"context"
	"crypto/tls"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Client is an SDK client of the stand-in in region, signing with the key given (the stand-in
// checks that requests are signed in form, not by whom) and trusting the stand-in's CA alone:
// for a test's own calls.
func (s *Server) Client(region, keyID, secret string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(s.Endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(keyID, secret, ""),
		HTTPClient:   &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CA.Pool()}}},
	})
}

// Seed creates table, on demand, with the string hash key hashKey, and puts item (each value a
// string attribute, hashKey among them), through client; it fails t on an error.
func Seed(t testing.TB, client *dynamodb.Client, table, hashKey string, item map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(hashKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(hashKey), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("dynalite: creating table %s: %v", table, err)
	}
	attrs := make(map[string]types.AttributeValue, len(item))
	for k, v := range item {
		attrs[k] = &types.AttributeValueMemberS{Value: v}
	}
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: attrs}); err != nil {
		t.Fatalf("dynalite: putting the item into %s: %v", table, err)
	}
}
