-- A visitor's days of a year with one chatbot as one row (issue 15): distinct visitors of a range read
-- a row per visitor and year instead of a row per visitor and day. Bit i of "days" is day i of the
-- UTC year (0 = 1 January; 366 bits, a leap year's 31 December the last).

-- CreateTable
CREATE TABLE "AnalyticsVisitorYear" (
    "chatbotId" UUID NOT NULL,
    "year" INTEGER NOT NULL,
    "visitorHash" TEXT NOT NULL,
    "days" BIT(366) NOT NULL,

    CONSTRAINT "AnalyticsVisitorYear_pkey" PRIMARY KEY ("chatbotId","year","visitorHash")
);

-- The visitors counted so far.
INSERT INTO "AnalyticsVisitorYear" ("chatbotId", "year", "visitorHash", "days")
SELECT "chatbotId", extract(year FROM "day")::int, "visitorHash",
       bit_or(set_bit(repeat('0', 366)::bit(366), "day" - make_date(extract(year FROM "day")::int, 1, 1), 1))
  FROM "AnalyticsVisitor"
 GROUP BY 1, 2, 3;
