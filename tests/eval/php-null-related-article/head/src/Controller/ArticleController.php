<?php

declare(strict_types=1);

namespace App\Controller;

use App\Repository\ArticleRepository;
use App\View\Renderer;

final class ArticleController
{
    public function __construct(
        private ArticleRepository $articles,
        private Renderer $view,
    ) {
    }

    public function show(string $slug): string
    {
        $article = $this->articles->findBySlug($slug);
        if ($article === null) {
            http_response_code(404);
            return $this->view->render('errors/404.html.php', []);
        }

        $data = [
            'title' => $article->title,
            'body' => $article->body,
        ];
        if ($article->relatedSlug !== null) {
            $related = $this->articles->findBySlug($article->relatedSlug);
            $data['related'] = [
                'title' => $related->title,
                'url' => '/articles/' . $related->slug,
            ];
        }

        return $this->view->render('articles/show.html.php', $data);
    }

    public function index(): string
    {
        return $this->view->render('articles/index.html.php', [
            'articles' => $this->articles->latest(20),
        ]);
    }
}
