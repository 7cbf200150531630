// docs/api.md part 17: what travels through the deliveries queue (DELIVERIES: one message per attempt
// of a delivery) and the delivery-events queue (Email Service's own `email.sending` events).

export interface DeliveryMessage {
  deliveryId: string;
}

/**
 * An Email Sending lifecycle event as its Queue subscription delivers it (Cloudflare's event
 * subscription envelope). Assumed from Cloudflare's event-subscription documentation: `type`
 * `cf.email.sending.message.<event>`, `payload.messageId` the binding's `messageId`, `payload.bounce.type`
 * "hard" or "soft", `payload.terminal` whether the service has given up on the message. Only these
 * fields are read; anything else in it is ignored.
 */
export interface EmailSendingEvent {
  type: string;
  source?: { type?: string; domain?: string };
  payload?: {
    eventId?: string;
    messageId?: string;
    terminal?: boolean;
    delivery?: { status?: string; smtpResponse?: string };
    bounce?: { type?: string; reason?: string };
    failure?: { reason?: string };
    rejection?: { reason?: string };
  };
}
