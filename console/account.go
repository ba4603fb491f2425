package console

import (
	"crypto/subtle"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/tenants"
)

// Audit actions of passwords.
const (
	auditPassword      = "user.password"
	auditPasswordReset = "user.password_reset"
)

// mountAccount adds the account page (password change) and the admin's reset link; the public
// page the link opens is mounted with the sign-in page.
func (cn *Console) mountAccount(in, admin fiber.Router) {
	in.Get("/account", cn.account)
	in.Post("/account/password", cn.changePassword)
	admin.Post("/password-reset", cn.issueReset)
}

func (cn *Console) accountView(c *fiber.Ctx) views.Account {
	v := viewerOf(c)
	return views.Account{CSRF: v.session.CSRF, Email: v.user.Email, Role: v.user.Role, IsAdmin: v.user.Role == tenants.RoleAdmin}
}

func (cn *Console) account(c *fiber.Ctx) error {
	return cn.page(c, "Account", "account", views.AccountPage(cn.accountView(c)))
}

// changePassword needs the current password; the user's other sessions end.
func (cn *Console) changePassword(c *fiber.Ctx) error {
	v := viewerOf(c)
	a := cn.accountView(c)
	next, confirm := c.FormValue("new"), c.FormValue("confirm")
	switch {
	case next != confirm:
		a.Errors = views.FieldErrors{"confirm": "the two new passwords differ"}
	default:
		err := cn.store.ChangePassword(c.UserContext(), v.user.ID, c.FormValue("current"), next, c.Cookies(sessionCookie))
		var inv *tenants.InvalidError
		switch {
		case errors.Is(err, tenants.ErrWrongPassword):
			a.Errors = views.FieldErrors{"current": err.Error()}
		case errors.As(err, &inv):
			a.Errors = views.FieldErrors{"new": inv.Message}
		case err != nil:
			return err
		}
	}
	if len(a.Errors) > 0 {
		nav := v.nav("account")
		return render(c, fiber.StatusUnprocessableEntity, views.Layout("Account", nav, views.AccountPage(a)))
	}
	cn.record(c, auditPassword, v.user.ID, state{"password": "set"}, state{"password": "changed"})
	return back(c, "/console/account", "Password changed. Your other sessions were signed out.", nil)
}

// issueReset makes a one-time reset link for a user, shown once to the admin.
func (cn *Console) issueReset(c *fiber.Ctx) error {
	v := viewerOf(c)
	a := cn.accountView(c)
	a.ResetEmail = strings.TrimSpace(c.FormValue("email"))
	u, err := cn.store.UserByEmail(c.UserContext(), a.ResetEmail)
	if errors.Is(err, tenants.ErrNotFound) {
		a.Errors = views.FieldErrors{"email": "no console user has that email"}
		return render(c, fiber.StatusUnprocessableEntity, views.Layout("Account", v.nav("account"), views.AccountPage(a)))
	}
	if err != nil {
		return err
	}
	raw, err := cn.store.IssuePasswordReset(c.UserContext(), u.ID, v.user.Email)
	if err != nil {
		return err
	}
	cn.record(c, auditPasswordReset, u.ID, nil, state{"email": u.Email, "reset_link": "set", "expires_in": tenants.PasswordResetTTL.String()})
	a.ResetLink = c.BaseURL() + "/console/reset/" + raw
	nav := v.nav("account")
	nav.Flash = "Reset link made. Send it to " + u.Email + " over a channel you trust; it works once, for 24 hours."
	return render(c, fiber.StatusOK, views.Layout("Account", nav, views.AccountPage(a)))
}

// resetPage is the form a reset link opens (no sign-in; the token is the secret, and the form
// carries the double-submit token of the sign-in form).
func (cn *Console) resetPage(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	u, err := cn.store.PasswordResetUser(c.UserContext(), c.Params("token"))
	if err != nil {
		return render(c, fiber.StatusNotFound, views.Layout("Reset password", views.Nav{}, views.ResetPage(views.Reset{Expired: true})))
	}
	return render(c, fiber.StatusOK, views.Layout("Reset password", views.Nav{}, views.ResetPage(views.Reset{Email: u.Email, CSRF: cn.loginToken(c), Token: c.Params("token")})))
}

func (cn *Console) reset(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	token := c.Cookies(loginCookie)
	if token == "" || subtle.ConstantTimeCompare([]byte(c.FormValue("_csrf")), []byte(token)) != 1 {
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.Status(fiber.StatusForbidden).SendString("forbidden: the form's CSRF token is missing or wrong; reload the page")
	}
	ctx := c.UserContext()
	u, err := cn.store.PasswordResetUser(ctx, c.Params("token"))
	if err != nil {
		return render(c, fiber.StatusNotFound, views.Layout("Reset password", views.Nav{}, views.ResetPage(views.Reset{Expired: true})))
	}
	r := views.Reset{Email: u.Email, CSRF: token, Token: c.Params("token")}
	if c.FormValue("new") != c.FormValue("confirm") {
		r.Errors = views.FieldErrors{"confirm": "the two new passwords differ"}
		return render(c, fiber.StatusUnprocessableEntity, views.Layout("Reset password", views.Nav{}, views.ResetPage(r)))
	}
	if _, err := cn.store.ResetPassword(ctx, c.Params("token"), c.FormValue("new")); err != nil {
		var inv *tenants.InvalidError
		if errors.As(err, &inv) {
			r.Errors = views.FieldErrors{"new": inv.Message}
			return render(c, fiber.StatusUnprocessableEntity, views.Layout("Reset password", views.Nav{}, views.ResetPage(r)))
		}
		return err
	}
	if err := cn.store.Audit(ctx, u.Email, auditPassword, u.ID, state{"password": "set"}, state{"password": "reset with a link"}); err != nil {
		cn.log.Error("audit write failed", "action", auditPassword, "target", u.ID, "err", err)
	}
	return render(c, fiber.StatusOK, views.Layout("Reset password", views.Nav{}, views.ResetPage(views.Reset{Done: true})))
}

// loginToken is the double-submit token of the signed-out forms (sign-in, reset).
func (cn *Console) loginToken(c *fiber.Ctx) string {
	token := c.Cookies(loginCookie)
	if len(token) != 32 {
		token = tenants.RandomString(32)
		setCookie(c, loginCookie, token, time.Hour)
	}
	return token
}
