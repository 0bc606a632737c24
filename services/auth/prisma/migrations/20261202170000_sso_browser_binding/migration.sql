-- A sign-in through SSO is bound to the browser that started it (docs/adr/0066-sso-bound-to-the-browser.md).
ALTER TABLE "SsoSignIn" ADD COLUMN "browserBindingHash" TEXT NOT NULL DEFAULT '';
