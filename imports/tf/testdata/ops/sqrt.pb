
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

ySqrtx*
T0"ª