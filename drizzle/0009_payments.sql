CREATE TABLE `bank_statements` (
	`id` text PRIMARY KEY NOT NULL,
	`statement_id` text NOT NULL,
	`account_iban` text NOT NULL,
	`from_date` text,
	`to_date` text,
	`state` text NOT NULL,
	`error` text,
	`transactions_count` integer NOT NULL,
	`matched_count` integer DEFAULT 0 NOT NULL,
	`unmatched_count` integer DEFAULT 0 NOT NULL,
	`duplicate_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`processed_at` text,
	`file_key` text NOT NULL,
	`file_index` integer NOT NULL,
	`version` text NOT NULL,
	`handled` integer DEFAULT 0 NOT NULL,
	`progressed_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bank_statements_created` ON `bank_statements` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `bank_statements_state_progressed` ON `bank_statements` (`state`,`progressed_at`);--> statement-breakpoint
CREATE TABLE `bank_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`bank_statement_id` text NOT NULL,
	`booked_on` text,
	`value_date` text,
	`credit_debit` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`counterparty_name` text,
	`counterparty_iban` text,
	`end_to_end_id` text,
	`creditor_reference` text,
	`remittance_information` text,
	`state` text NOT NULL,
	`allocated_amount` integer DEFAULT 0 NOT NULL,
	`customer_id` text,
	`created_at` text NOT NULL,
	`dedupe_key` text NOT NULL,
	`position` integer NOT NULL,
	`return_reason` text,
	FOREIGN KEY (`bank_statement_id`) REFERENCES `bank_statements`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_transactions_dedupe` ON `bank_transactions` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `bank_transactions_created` ON `bank_transactions` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_state_created` ON `bank_transactions` (`state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_statement_created` ON `bank_transactions` (`bank_statement_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `bank_transactions_counterparty` ON `bank_transactions` (`counterparty_iban`,`customer_id`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`invoice_id` text NOT NULL,
	`invoice_number` text NOT NULL,
	`customer_id` text NOT NULL,
	`amount` integer NOT NULL,
	`method` text NOT NULL,
	`bank_transaction_id` text,
	`booked_on` text NOT NULL,
	`returned_at` text,
	`return_reason` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`bank_transaction_id`) REFERENCES `bank_transactions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payments_invoice_created` ON `payments` (`invoice_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `payments_transaction` ON `payments` (`bank_transaction_id`);--> statement-breakpoint
ALTER TABLE `invoices` ADD `allocated_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `billing_profiles_direct_debit_iban` ON `billing_profiles` (`direct_debit_iban`);--> statement-breakpoint
-- An invoice paid before payments existed (by `pay`) gets its manual payment, so that its balance and
-- its payments say what its state says (docs/api.md part 15).
UPDATE `invoices` SET `allocated_amount` = coalesce(`gross_amount`, 0) WHERE `state` = 'paid';
--> statement-breakpoint
INSERT INTO `payments` (`id`, `invoice_id`, `invoice_number`, `customer_id`, `amount`, `method`, `bank_transaction_id`, `booked_on`, `returned_at`, `return_reason`, `created_at`)
  SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
      substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
    `id`, `number`, `customer_id`, coalesce(`gross_amount`, 0), 'manual', NULL, substr(`paid_at`, 1, 10), NULL, NULL, `paid_at`
  FROM `invoices` WHERE `state` = 'paid';
--> statement-breakpoint
-- The kept totals of the new lists (src/db/schema.ts CountedList), by triggers as the others' (0006).
CREATE TRIGGER `bank_statements_counted_insert` AFTER INSERT ON `bank_statements` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('bank_statements', '', '', 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `bank_transactions_counted_insert` AFTER INSERT ON `bank_transactions` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('bank_transactions', '', '', 1), ('bank_transactions', '', NEW.`state`, 1), ('statement_transactions', NEW.`bank_statement_id`, '', 1), ('statement_transactions', NEW.`bank_statement_id`, NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `bank_transactions_counted_state` AFTER UPDATE OF `state` ON `bank_transactions` WHEN OLD.`state` <> NEW.`state` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'bank_transactions' AND `scope` = '' AND `filter` = OLD.`state`;
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'statement_transactions' AND `scope` = OLD.`bank_statement_id` AND `filter` = OLD.`state`;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('bank_transactions', '', NEW.`state`, 1), ('statement_transactions', NEW.`bank_statement_id`, NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `payments_counted_insert` AFTER INSERT ON `payments` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('invoice_payments', NEW.`invoice_id`, '', 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'invoice_payments', `invoice_id`, '', count(*) FROM `payments` GROUP BY `invoice_id`;
