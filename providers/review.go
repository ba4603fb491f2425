package providers

// ReviewPrompt is what a sharpen reviewer is asked: the gateway writes it, the reviewer families
// (providers/upstream/reviewers) send it to their vendor.
type ReviewPrompt struct {
	System string
	User   string
	// MaxTokens bounds the review text; a reasoning tier adds its thinking allowance on top.
	MaxTokens int
	// Tier is the sharpen tier ("" is sharpen): it picks the reasoning effort and names the
	// model setting in errors.
	Tier string
}
