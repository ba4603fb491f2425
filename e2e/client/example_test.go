package client_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/capgate/capgate/e2e/client"
)

// The README's example, compiled with the package so it cannot drift from the generated client.
func Example() {
	auth := client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+os.Getenv("CAPGATE_KEY"))
		return nil
	})
	c, _ := client.NewClientWithResponses(os.Getenv("CAPGATE_URL"), auth) // an error only for a malformed URL
	q, n := "the lord of the rings", 3
	res, err := c.ExecuteBooksSearchWithResponse(context.Background(), nil, client.RequestBooksSearch{Query: &q, Num: &n})
	switch {
	case err != nil:
		log.Fatal(err)
	case res.JSON200 != nil:
		for _, r := range res.JSON200.Results {
			fmt.Println(r.RecordId, r.Title)
		}
	case res.JSON400 != nil:
		fmt.Println(res.JSON400.Error.Code, res.JSON400.Error.Message)
	}
}
