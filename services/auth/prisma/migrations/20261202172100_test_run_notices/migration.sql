-- The regression mail of a test run, once per run and owner (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md).
CREATE TABLE "TestRunNotice" (
    "runId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TestRunNotice_pkey" PRIMARY KEY ("runId","userId")
);

CREATE INDEX "TestRunNotice_workspaceId_idx" ON "TestRunNotice"("workspaceId");

ALTER TABLE "TestRunNotice" ADD CONSTRAINT "TestRunNotice_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
