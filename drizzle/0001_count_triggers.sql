-- Per-(customer, state) counts behind each list's `total_entries`: kept by triggers so that no write
-- path can forget them, and read instead of COUNT(*), which D1 bills for every row it passes.
-- A drizzle-kit table rebuild of card_orders or invoices drops these triggers: recreate them there.
CREATE TRIGGER `card_orders_count_insert` AFTER INSERT ON `card_orders` BEGIN
  INSERT INTO `card_order_counts` (`customer_id`, `state`, `total`) VALUES (NEW.`customer_id`, NEW.`state`, 1)
    ON CONFLICT (`customer_id`, `state`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `card_orders_count_state` AFTER UPDATE OF `state` ON `card_orders` WHEN OLD.`state` <> NEW.`state` BEGIN
  UPDATE `card_order_counts` SET `total` = `total` - 1 WHERE `customer_id` = OLD.`customer_id` AND `state` = OLD.`state`;
  INSERT INTO `card_order_counts` (`customer_id`, `state`, `total`) VALUES (NEW.`customer_id`, NEW.`state`, 1)
    ON CONFLICT (`customer_id`, `state`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `card_orders_count_delete` AFTER DELETE ON `card_orders` BEGIN
  UPDATE `card_order_counts` SET `total` = `total` - 1 WHERE `customer_id` = OLD.`customer_id` AND `state` = OLD.`state`;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_count_insert` AFTER INSERT ON `invoices` BEGIN
  INSERT INTO `invoice_counts` (`customer_id`, `state`, `total`) VALUES (NEW.`customer_id`, NEW.`state`, 1)
    ON CONFLICT (`customer_id`, `state`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_count_state` AFTER UPDATE OF `state` ON `invoices` WHEN OLD.`state` <> NEW.`state` BEGIN
  UPDATE `invoice_counts` SET `total` = `total` - 1 WHERE `customer_id` = OLD.`customer_id` AND `state` = OLD.`state`;
  INSERT INTO `invoice_counts` (`customer_id`, `state`, `total`) VALUES (NEW.`customer_id`, NEW.`state`, 1)
    ON CONFLICT (`customer_id`, `state`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_count_delete` AFTER DELETE ON `invoices` BEGIN
  UPDATE `invoice_counts` SET `total` = `total` - 1 WHERE `customer_id` = OLD.`customer_id` AND `state` = OLD.`state`;
END;
