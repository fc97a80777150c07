export interface Address {
  line1: string;
  line2?: string;
  city: string;
  postalCode: string;
  country: string;
}

export interface Customer {
  id: string;
  name: string;
  email: string;
  shippingAddress: Address;
  /** Null until the customer adds a payment method. */
  billingAddress: Address | null;
  vatNumber?: string;
}

export interface InvoiceLine {
  description: string;
  quantity: number;
  unitCents: number;
}

export interface Invoice {
  number: string;
  customer: Customer;
  lines: InvoiceLine[];
  issuedAt: Date;
}
