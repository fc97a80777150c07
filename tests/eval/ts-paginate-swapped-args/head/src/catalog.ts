export interface Product {
  id: string;
  name: string;
  category: string;
  priceCents: number;
}

export interface Catalog {
  list(): Promise<Product[]>;
  byId(id: string): Promise<Product | undefined>;
}

export class InMemoryCatalog implements Catalog {
  private readonly products = new Map<string, Product>();

  constructor(seed: Product[] = []) {
    for (const p of seed) this.products.set(p.id, p);
  }

  async list(): Promise<Product[]> {
    return [...this.products.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  async byId(id: string): Promise<Product | undefined> {
    return this.products.get(id);
  }
}
