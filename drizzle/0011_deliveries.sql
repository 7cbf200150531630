CREATE TABLE `invoice_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`invoice_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`document` text NOT NULL,
	`reminder_id` text,
	`channel` text DEFAULT 'email' NOT NULL,
	`recipient` text NOT NULL,
	`format` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`message_id` text,
	`error` text,
	`created_at` text NOT NULL,
	`sent_at` text,
	`updated_at` text NOT NULL,
	`cause` text,
	`attempt_after` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `invoice_deliveries_invoice` ON `invoice_deliveries` (`invoice_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoice_deliveries_created` ON `invoice_deliveries` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoice_deliveries_state` ON `invoice_deliveries` (`state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoice_deliveries_due` ON `invoice_deliveries` (`state`,`attempt_after`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoice_deliveries_message` ON `invoice_deliveries` (`message_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoice_deliveries_cause` ON `invoice_deliveries` (`invoice_id`,`cause`);--> statement-breakpoint
ALTER TABLE `billing_profiles` ADD `invoice_format` text;--> statement-breakpoint
ALTER TABLE `billing_profiles` ADD `invoice_delivery` text DEFAULT 'email' NOT NULL;--> statement-breakpoint
CREATE TRIGGER `invoice_deliveries_counted_insert` AFTER INSERT ON `invoice_deliveries` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('invoice_deliveries', '', '', 1), ('invoice_deliveries', '', NEW.`state`, 1), ('deliveries_of_invoice', NEW.`invoice_id`, '', 1), ('deliveries_of_invoice', NEW.`invoice_id`, NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoice_deliveries_counted_state` AFTER UPDATE OF `state` ON `invoice_deliveries` WHEN OLD.`state` <> NEW.`state` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'invoice_deliveries' AND `scope` = '' AND `filter` = OLD.`state`;
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'deliveries_of_invoice' AND `scope` = OLD.`invoice_id` AND `filter` = OLD.`state`;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('invoice_deliveries', '', NEW.`state`, 1), ('deliveries_of_invoice', NEW.`invoice_id`, NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
