package social

import "github.com/capgate/capgate/providers/internal/lenient"

// Record is a social.search record (besides title, url and snippet): a post or a profile on
// either platform; keys a platform or kind does not have are left out.
type Record struct {
	Author      string `json:"author,omitempty" doc:"handle of the poster or of the account"`
	AuthorName  string `json:"author_name,omitempty" doc:"display name"`
	Comments    *int64 `json:"comments,omitempty" doc:"platform_b posts"`
	CreatedAt   string `json:"created_at,omitempty" doc:"RFC 3339; account creation for profiles"`
	Followers   *int64 `json:"followers,omitempty" doc:"profiles"`
	Following   *int64 `json:"following,omitempty" doc:"platform_a profiles"`
	Karma       *int64 `json:"karma,omitempty" doc:"platform_b profiles"`
	Kind        string `json:"kind" doc:"post or profile"`
	Likes       *int64 `json:"likes,omitempty" doc:"platform_a posts"`
	LinkURL     string `json:"link_url,omitempty" doc:"the linked page of a platform_b link post"`
	Location    string `json:"location,omitempty" doc:"platform_a profiles"`
	Platform    string `json:"platform" doc:"platform_a or platform_b"`
	Posts       *int64 `json:"posts,omitempty" doc:"platform_a profiles"`
	Replies     *int64 `json:"replies,omitempty" doc:"platform_a posts"`
	Reposts     *int64 `json:"reposts,omitempty" doc:"platform_a posts"`
	Score       *int64 `json:"score,omitempty" doc:"platform_b posts"`
	Subreddit   string `json:"subreddit,omitempty" doc:"platform_b posts"`
	Subscribers *int64 `json:"subscribers,omitempty" doc:"of the subreddit, platform_b posts"`
	Verified    *bool  `json:"verified,omitempty" doc:"profiles"`
	Views       *int64 `json:"views,omitempty" doc:"platform_a posts"`
}

// The details bodies below declare their fields in key order: a detail is written by
// encoding/json, which keeps the declared order.

// XPostDetail is the details body of a platform_a post.
type XPostDetail struct {
	Author            *XAuthor     `json:"author,omitempty"`
	ConversationID    string       `json:"conversation_id,omitempty"`
	CreatedAt         string       `json:"created_at,omitempty"`
	Engagement        *XEngagement `json:"engagement,omitempty"`
	ID                string       `json:"id"`
	Kind              string       `json:"kind"`
	Lang              string       `json:"lang,omitempty"`
	Platform          string       `json:"platform"`
	PossiblySensitive *bool        `json:"possibly_sensitive,omitempty"`
	ReferencedPosts   []XReference `json:"referenced_posts,omitempty"`
	ReplySettings     string       `json:"reply_settings,omitempty"`
	Text              string       `json:"text,omitempty"`
	URL               string       `json:"url,omitempty"`
}

// XAuthor is the author of a platform_a post.
type XAuthor struct {
	Followers *int64 `json:"followers,omitempty"`
	ID        string `json:"id,omitempty"`
	Location  string `json:"location,omitempty"`
	Name      string `json:"name,omitempty"`
	Username  string `json:"username,omitempty"`
	Verified  *bool  `json:"verified,omitempty"`
}

// XEngagement is a platform_a post's public metrics.
type XEngagement struct {
	Bookmarks *int64 `json:"bookmarks,omitempty"`
	Likes     *int64 `json:"likes,omitempty"`
	Quotes    *int64 `json:"quotes,omitempty"`
	Replies   *int64 `json:"replies,omitempty"`
	Reposts   *int64 `json:"reposts,omitempty"`
	Views     *int64 `json:"views,omitempty"`
}

// XReference is a post a platform_a post quotes or replies to.
type XReference struct {
	ID   string `json:"id"`
	Type string `json:"type,omitempty"`
}

// XProfileDetail is the details body of a platform_a profile.
type XProfileDetail struct {
	Counts          *XCounts `json:"counts,omitempty"`
	CreatedAt       string   `json:"created_at,omitempty"`
	Description     string   `json:"description,omitempty"`
	ID              string   `json:"id"`
	Kind            string   `json:"kind"`
	Location        string   `json:"location,omitempty"`
	Name            string   `json:"name,omitempty"`
	PinnedPostID    string   `json:"pinned_post_id,omitempty"`
	Platform        string   `json:"platform"`
	ProfileImageURL string   `json:"profile_image_url,omitempty"`
	Protected       *bool    `json:"protected,omitempty"`
	URL             string   `json:"url,omitempty"`
	Username        string   `json:"username,omitempty"`
	Verified        *bool    `json:"verified,omitempty"`
	VerifiedType    string   `json:"verified_type,omitempty"`
	Website         string   `json:"website,omitempty"`
}

// XCounts are a platform_a account's public metrics.
type XCounts struct {
	Followers *int64 `json:"followers,omitempty"`
	Following *int64 `json:"following,omitempty"`
	Likes     *int64 `json:"likes,omitempty"`
	Listed    *int64 `json:"listed,omitempty"`
	Media     *int64 `json:"media,omitempty"`
	Posts     *int64 `json:"posts,omitempty"`
}

// RedditPostDetail is the details body of a platform_b post, with its top comments.
type RedditPostDetail struct {
	Author      string          `json:"author,omitempty"`
	Comments    *int64          `json:"comments,omitempty"`
	CreatedAt   string          `json:"created_at,omitempty"`
	Crossposts  *int64          `json:"crossposts,omitempty"`
	Domain      string          `json:"domain,omitempty"`
	EditedAt    string          `json:"edited_at,omitempty"`
	Flair       string          `json:"flair,omitempty"`
	ID          string          `json:"id"`
	Kind        string          `json:"kind"`
	LinkURL     string          `json:"link_url,omitempty"`
	Locked      *bool           `json:"locked,omitempty"`
	Over18      *bool           `json:"over_18,omitempty"`
	Platform    string          `json:"platform"`
	RemovedBy   string          `json:"removed_by,omitempty"`
	Score       *int64          `json:"score,omitempty"`
	Spoiler     *bool           `json:"spoiler,omitempty"`
	Subreddit   string          `json:"subreddit,omitempty"`
	Subscribers *int64          `json:"subscribers,omitempty"`
	Text        string          `json:"text,omitempty"`
	Title       string          `json:"title,omitempty"`
	TopComments []RedditComment `json:"top_comments"`
	UpvoteRatio *float64        `json:"upvote_ratio,omitempty"`
	URL         string          `json:"url,omitempty"`
	Video       *bool           `json:"video,omitempty"`
}

// RedditComment is one of a platform_b post's top comments.
type RedditComment struct {
	Author        string `json:"author,omitempty"`
	CreatedAt     string `json:"created_at,omitempty"`
	Distinguished string `json:"distinguished,omitempty"`
	Score         *int64 `json:"score,omitempty"`
	Stickied      *bool  `json:"stickied,omitempty"`
	Text          string `json:"text"`
	URL           string `json:"url,omitempty"`
}

// RedditProfileDetail is the details body of a platform_b profile.
type RedditProfileDetail struct {
	AcceptsFollowers *bool        `json:"accepts_followers,omitempty"`
	CreatedAt        string       `json:"created_at,omitempty"`
	Description      string       `json:"description,omitempty"`
	Followers        *int64       `json:"followers,omitempty"`
	HasVerifiedEmail *bool        `json:"has_verified_email,omitempty"`
	IconURL          string       `json:"icon_url,omitempty"`
	ID               string       `json:"id,omitempty"`
	IsEmployee       *bool        `json:"is_employee,omitempty"`
	IsModerator      *bool        `json:"is_moderator,omitempty"`
	Karma            *RedditKarma `json:"karma,omitempty"`
	Kind             string       `json:"kind"`
	Name             string       `json:"name"`
	Over18           *bool        `json:"over_18,omitempty"`
	Platform         string       `json:"platform"`
	Premium          *bool        `json:"premium,omitempty"`
	Suspended        *bool        `json:"suspended,omitempty"`
	Title            string       `json:"title,omitempty"`
	URL              string       `json:"url,omitempty"`
	Verified         *bool        `json:"verified,omitempty"`
}

// RedditKarma is a platform_b account's karma by source.
type RedditKarma struct {
	Awardee  *int64 `json:"awardee,omitempty"`
	Awarder  *int64 `json:"awarder,omitempty"`
	Comments *int64 `json:"comments,omitempty"`
	Posts    *int64 `json:"posts,omitempty"`
	Total    *int64 `json:"total,omitempty"`
}

// intOf is a present value's address, nil when absent.
func intOf(v lenient.Int) *int64 {
	if !v.OK {
		return nil
	}
	return &v.V
}

// boolOf is a present value's address, nil when absent.
func boolOf(v lenient.Bool) *bool {
	if !v.OK {
		return nil
	}
	return &v.V
}
