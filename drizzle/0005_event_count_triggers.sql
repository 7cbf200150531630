-- Per-(customer, type) counts behind GET /events' total_entries, kept by triggers like the counts of
-- card orders and invoices (0001_count_triggers.sql): the retention sweep's deletes count too.
CREATE TRIGGER `events_count_insert` AFTER INSERT ON `events` BEGIN
  INSERT INTO `event_counts` (`customer_id`, `type`, `total`) VALUES (NEW.`customer_id`, NEW.`type`, 1)
    ON CONFLICT (`customer_id`, `type`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `events_count_delete` AFTER DELETE ON `events` BEGIN
  UPDATE `event_counts` SET `total` = `total` - 1 WHERE `customer_id` = OLD.`customer_id` AND `type` = OLD.`type`;
END;
