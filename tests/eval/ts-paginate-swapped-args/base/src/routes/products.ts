import { Router } from "express";
import { DEFAULT_PAGE_SIZE, parsePositiveInt } from "../lib/paging";
import type { Catalog } from "../catalog";

export function productRoutes(catalog: Catalog): Router {
  const router = Router();

  router.get("/products/:id", async (req, res) => {
    const product = await catalog.byId(req.params.id);
    if (!product) {
      res.status(404).json({ error: "not found" });
      return;
    }
    res.json(product);
  });

  router.get("/products", async (req, res) => {
    const category = typeof req.query.category === "string" ? req.query.category : undefined;
    const all = await catalog.list();
    const filtered = category ? all.filter((p) => p.category === category) : all;
    res.json({ items: filtered, total: filtered.length });
  });

  return router;
}
