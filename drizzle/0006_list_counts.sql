-- The kept totals of every list move to one table, list_counts (src/db/schema.ts says which lists),
-- each kept by triggers: a list page reads its total as one row, with or without a filter, where
-- the old per-state tables needed a row per state. Counted from the rows themselves, then the old
-- tables and their triggers go.
CREATE TABLE `list_counts` (
	`list` text NOT NULL,
	`scope` text NOT NULL,
	`filter` text NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`list`, `scope`, `filter`)
);
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'card_orders', `customer_id`, '', count(*) FROM `card_orders` GROUP BY `customer_id`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'card_orders', `customer_id`, `state`, count(*) FROM `card_orders` GROUP BY `customer_id`, `state`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'invoices', `customer_id`, '', count(*) FROM `invoices` GROUP BY `customer_id`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'invoices', `customer_id`, `state`, count(*) FROM `invoices` GROUP BY `customer_id`, `state`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'order_invoices', `order_id`, '', count(*) FROM `invoices` GROUP BY `order_id`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'order_invoices', `order_id`, `state`, count(*) FROM `invoices` GROUP BY `order_id`, `state`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'events', `customer_id`, '', count(*) FROM `events` GROUP BY `customer_id`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'events', `customer_id`, `type`, count(*) FROM `events` GROUP BY `customer_id`, `type`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'devices', `owner_id`, '', count(*) FROM `notification_tokens` GROUP BY `owner_id`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'webhook_endpoints', `customer_id`, '', count(*) FROM `webhook_endpoints` GROUP BY `customer_id`;
--> statement-breakpoint
DROP TRIGGER `card_orders_count_insert`;
--> statement-breakpoint
DROP TRIGGER `card_orders_count_state`;
--> statement-breakpoint
DROP TRIGGER `card_orders_count_delete`;
--> statement-breakpoint
DROP TRIGGER `invoices_count_insert`;
--> statement-breakpoint
DROP TRIGGER `invoices_count_state`;
--> statement-breakpoint
DROP TRIGGER `invoices_count_delete`;
--> statement-breakpoint
DROP TRIGGER `events_count_insert`;
--> statement-breakpoint
DROP TRIGGER `events_count_delete`;
--> statement-breakpoint
DROP TABLE `card_order_counts`;
--> statement-breakpoint
DROP TABLE `event_counts`;
--> statement-breakpoint
DROP TABLE `invoice_counts`;
--> statement-breakpoint
CREATE TRIGGER `card_orders_counted_insert` AFTER INSERT ON `card_orders` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('card_orders', NEW.`customer_id`, '', 1), ('card_orders', NEW.`customer_id`, NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `card_orders_counted_state` AFTER UPDATE OF `state` ON `card_orders` WHEN OLD.`state` <> NEW.`state` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'card_orders' AND `scope` = OLD.`customer_id` AND `filter` = OLD.`state`;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('card_orders', NEW.`customer_id`, NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `card_orders_counted_delete` AFTER DELETE ON `card_orders` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'card_orders' AND `scope` = OLD.`customer_id` AND `filter` = '';
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'card_orders' AND `scope` = OLD.`customer_id` AND `filter` = OLD.`state`;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_counted_insert` AFTER INSERT ON `invoices` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('invoices', NEW.`customer_id`, '', 1), ('invoices', NEW.`customer_id`, NEW.`state`, 1), ('order_invoices', NEW.`order_id`, '', 1), ('order_invoices', NEW.`order_id`, NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_counted_state` AFTER UPDATE OF `state` ON `invoices` WHEN OLD.`state` <> NEW.`state` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'invoices' AND `scope` = OLD.`customer_id` AND `filter` = OLD.`state`;
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'order_invoices' AND `scope` = OLD.`order_id` AND `filter` = OLD.`state`;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('invoices', NEW.`customer_id`, NEW.`state`, 1), ('order_invoices', NEW.`order_id`, NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_counted_delete` AFTER DELETE ON `invoices` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'invoices' AND `scope` = OLD.`customer_id` AND `filter` = '';
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'invoices' AND `scope` = OLD.`customer_id` AND `filter` = OLD.`state`;
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'order_invoices' AND `scope` = OLD.`order_id` AND `filter` = '';
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'order_invoices' AND `scope` = OLD.`order_id` AND `filter` = OLD.`state`;
END;
--> statement-breakpoint
CREATE TRIGGER `events_counted_insert` AFTER INSERT ON `events` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('events', NEW.`customer_id`, '', 1), ('events', NEW.`customer_id`, NEW.`type`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `events_counted_delete` AFTER DELETE ON `events` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'events' AND `scope` = OLD.`customer_id` AND `filter` = '';
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'events' AND `scope` = OLD.`customer_id` AND `filter` = OLD.`type`;
END;
--> statement-breakpoint
CREATE TRIGGER `notification_tokens_counted_insert` AFTER INSERT ON `notification_tokens` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('devices', NEW.`owner_id`, '', 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `notification_tokens_counted_delete` AFTER DELETE ON `notification_tokens` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'devices' AND `scope` = OLD.`owner_id` AND `filter` = '';
END;
--> statement-breakpoint
CREATE TRIGGER `webhook_endpoints_counted_insert` AFTER INSERT ON `webhook_endpoints` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('webhook_endpoints', NEW.`customer_id`, '', 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `webhook_endpoints_counted_delete` AFTER DELETE ON `webhook_endpoints` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'webhook_endpoints' AND `scope` = OLD.`customer_id` AND `filter` = '';
END;
