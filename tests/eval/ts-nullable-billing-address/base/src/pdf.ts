import { renderInvoice } from "./invoice";
import type { Invoice } from "./types";

export interface PdfRenderer {
  render(text: string): Promise<Uint8Array>;
}

export async function invoicePdf(renderer: PdfRenderer, invoice: Invoice): Promise<Uint8Array> {
  const text = renderInvoice(invoice);
  return renderer.render(text);
}

export function pdfFileName(invoice: Invoice): string {
  const date = invoice.issuedAt.toISOString().slice(0, 10);
  return `invoice-${invoice.number}-${date}.pdf`;
}

export function contentDisposition(invoice: Invoice): string {
  return `attachment; filename="${pdfFileName(invoice)}"`;
}

export const PDF_MIME = "application/pdf";
