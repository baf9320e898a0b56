
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yErfx*
T0"ª