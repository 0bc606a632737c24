-- One Request URL for the operator's Slack app (docs/adr/0075-one-request-url-for-the-operators-slack-app.md):
-- a connection made through "Add to Slack" is marked, and its events are routed by its workspace,
-- which one such connection holds at a time.
ALTER TABLE "ChannelConnection" ADD COLUMN "slackAppInstall" BOOLEAN NOT NULL DEFAULT false;

CREATE UNIQUE INDEX "ChannelConnection_slack_app_workspace" ON "ChannelConnection"("accountId") WHERE "slackAppInstall";
