<?php

declare(strict_types=1);

namespace App\Repository;

use App\Model\Article;
use PDO;

final class ArticleRepository
{
    public function __construct(private PDO $pdo)
    {
    }

    /** Only published articles are returned; drafts and unpublished ones are null. */
    public function findBySlug(string $slug): ?Article
    {
        $stmt = $this->pdo->prepare(
            'SELECT id, slug, title, body, related_slug FROM articles WHERE slug = :slug AND published = 1'
        );
        $stmt->execute(['slug' => $slug]);
        $row = $stmt->fetch(PDO::FETCH_ASSOC);
        if ($row === false) {
            return null;
        }
        return Article::fromRow($row);
    }

    /** @return list<Article> */
    public function latest(int $limit = 10): array
    {
        $stmt = $this->pdo->prepare(
            'SELECT id, slug, title, body, related_slug FROM articles WHERE published = 1 ORDER BY id DESC LIMIT :limit'
        );
        $stmt->bindValue('limit', $limit, PDO::PARAM_INT);
        $stmt->execute();
        return array_map([Article::class, 'fromRow'], $stmt->fetchAll(PDO::FETCH_ASSOC));
    }
}
