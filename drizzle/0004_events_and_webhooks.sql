CREATE TABLE `event_counts` (
	`customer_id` text NOT NULL,
	`type` text NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `type`)
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`type` text NOT NULL,
	`created_at` text NOT NULL,
	`data` text NOT NULL,
	`dispatched_at` text
);
--> statement-breakpoint
CREATE INDEX `events_customer_created` ON `events` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `events_customer_type_created` ON `events` (`customer_id`,`type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `events_created` ON `events` (`created_at`);--> statement-breakpoint
CREATE INDEX `events_undispatched` ON `events` (`created_at`) WHERE "events"."dispatched_at" IS NULL;--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`url` text NOT NULL,
	`event_types` text NOT NULL,
	`encrypted_secret` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_customer_created` ON `webhook_endpoints` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `notification_tokens_owner_updated` ON `notification_tokens` (`owner_id`,`updated_at`,`device_identifier`);