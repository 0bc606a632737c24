-- The knowledge entries an answer cited, kept with it so the owner's History shows them as the visitor
-- saw them ([{ "entryId", "title", "url"? }], its [n] markers numbered in that order); null when it
-- cited none, and for answers stored before they were kept.

-- AlterTable
ALTER TABLE "Message" ADD COLUMN "sources" JSONB;
