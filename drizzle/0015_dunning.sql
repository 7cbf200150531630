CREATE TABLE `dunnings` (
	`invoice_id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`start_on` text,
	`ended_on` text,
	`level` integer DEFAULT 0 NOT NULL,
	`default_since` text,
	`last_issued_on` text,
	`restart_on` text,
	`held_reason` text,
	`last_run_on` text,
	`overdue_on` text,
	`next_on` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dunnings_due` ON `dunnings` (`next_on`,`invoice_id`) WHERE "dunnings"."next_on" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `reminders` (
	`id` text PRIMARY KEY NOT NULL,
	`invoice_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`invoice_number` text NOT NULL,
	`level` integer NOT NULL,
	`title` text NOT NULL,
	`issued_on` text NOT NULL,
	`pay_by` text NOT NULL,
	`default_since` text,
	`open_amount` integer NOT NULL,
	`interest_percent` text,
	`interest_amount` integer NOT NULL,
	`fee_amount` integer NOT NULL,
	`total_amount` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reminders_invoice_level` ON `reminders` (`invoice_id`,`level`);--> statement-breakpoint
CREATE INDEX `reminders_invoice_created` ON `reminders` (`invoice_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_dunning_new` ON `invoices` (`due_on`,`id`) WHERE "invoices"."state" = 'open' AND "invoices"."dunning_state" = 'none';--> statement-breakpoint
CREATE TRIGGER `reminders_counted_insert` AFTER INSERT ON `reminders` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('reminders_of_invoice', NEW.`invoice_id`, '', 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_dunning_left_open` AFTER UPDATE OF `state` ON `invoices` WHEN OLD.`state` = 'open' AND NEW.`state` <> 'open' BEGIN
  UPDATE `dunnings` SET `next_on` = NULL WHERE `invoice_id` = NEW.`id` AND `next_on` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_dunning_reopened` AFTER UPDATE OF `state` ON `invoices` WHEN OLD.`state` <> 'open' AND NEW.`state` = 'open' AND NEW.`dunning_state` = 'active' BEGIN
  UPDATE `dunnings` SET `next_on` = '0000-01-01' WHERE `invoice_id` = NEW.`id`;
END;
